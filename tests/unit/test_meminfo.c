/*
 * Tests for the /proc/meminfo reader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "file.h"
#include "meminfo.h"

static char path[] = "/tmp/test_meminfo.XXXXXX";

static void
put(const char *text)
{
	CHECK_INT(file_write_atomic(path, text, strlen(text), 0644, 0), 0);
}

static void
test_meminfo_fields(void)
{
	long long mb = -5;

	put("MemTotal:       16318412 kB\n"
	    "MemFree:          512000 kB\n"
	    "MemAvailable:    2097152 kB\n"
	    "SwapTotal:             0 kB\n");
	CHECK_INT(meminfo_mb(path, "MemAvailable", &mb), 0);
	CHECK_INT(mb, 2048);
	CHECK_INT(meminfo_mb(path, "SwapTotal", &mb), 0);
	CHECK_INT(mb, 0);
	CHECK_INT(meminfo_mb(path, "MemTotal", &mb), 0);
	CHECK_INT(mb, 15935);
	/* Rounded down. */
	put("MemAvailable: 1535 kB\n");
	CHECK_INT(meminfo_mb(path, "MemAvailable", &mb), 0);
	CHECK_INT(mb, 1);
}

static void
test_meminfo_bad(void)
{
	long long mb = 7;

	put("MemTotal: 100 kB\nXMemAvailable: 5000 kB\n");
	CHECK_INT(meminfo_mb(path, "MemAvailable", &mb), -1);
	put("MemAvailable: lots\n");
	CHECK_INT(meminfo_mb(path, "MemAvailable", &mb), -1);
	put("MemAvailable: -4 kB\n");
	CHECK_INT(meminfo_mb(path, "MemAvailable", &mb), -1);
	put("");
	CHECK_INT(meminfo_mb(path, "MemAvailable", &mb), -1);
	CHECK_INT(mb, 7);
	CHECK_INT(meminfo_mb("/nonexistent/meminfo", "MemAvailable", &mb), -1);
}

int
main(void)
{
	int fd;

	if ((fd = mkstemp(path)) == -1)
		return 1;
	close(fd);
	RUN(test_meminfo_fields);
	RUN(test_meminfo_bad);
	unlink(path);
	return check_main();
}
