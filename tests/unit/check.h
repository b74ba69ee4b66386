/*
 * A minimal unit-test harness.  Each test is a function; CHECK records a
 * failed expression with its location and lets the test go on.  A test
 * prints "ok - name" or "not ok - name"; check_main() ends with the line
 * "N passed, N failed" and exits non-zero when anything failed.  tests/run
 * adds the lines of every test program together.
 */
#ifndef CHECK_H
#define CHECK_H

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_test_failed;
static int check_passed, check_failed;

#define CHECK(expr)                                                       \
	do {                                                              \
		if (!(expr)) {                                            \
			printf("#   %s:%d: check failed: %s\n", __FILE__, \
			    __LINE__, #expr);                             \
			check_test_failed = 1;                            \
		}                                                         \
	} while (0)

#define CHECK_INT(a, b)                                                  \
	do {                                                             \
		long long check_a_ = (long long)(a),                     \
			  check_b_ = (long long)(b);                     \
		if (check_a_ != check_b_) {                              \
			printf("#   %s:%d: %s == %lld, expected %lld\n", \
			    __FILE__, __LINE__, #a, check_a_, check_b_); \
			check_test_failed = 1;                           \
		}                                                        \
	} while (0)

#define CHECK_STR(a, b)                                                      \
	do {                                                                 \
		const char *check_a_ = (a), *check_b_ = (b);                 \
		if (check_a_ == NULL || check_b_ == NULL ?                   \
			check_a_ != check_b_ :                               \
			strcmp(check_a_, check_b_) != 0) {                   \
			printf("#   %s:%d: %s == \"%s\", expected \"%s\"\n", \
			    __FILE__, __LINE__, #a,                          \
			    check_a_ ? check_a_ : "(null)",                  \
			    check_b_ ? check_b_ : "(null)");                 \
			check_test_failed = 1;                               \
		}                                                            \
	} while (0)

#define RUN(fn)                                       \
	do {                                          \
		check_test_failed = 0;                \
		fn();                                 \
		if (check_test_failed) {              \
			check_failed++;               \
			printf("not ok - %s\n", #fn); \
		} else {                              \
			check_passed++;               \
			printf("ok - %s\n", #fn);     \
		}                                     \
		fflush(stdout);                       \
	} while (0)

/*
 * Bytes the C library's allocator has handed out and not taken back, for
 * leak counts in the plain build.  Under the sanitizers the count stands
 * still (their allocator does not report it; LeakSanitizer covers the same
 * ground at exit): check_heap_counted() says which.
 */
static inline size_t
check_heap(void)
{
	return mallinfo2().uordblks;
}

static inline int
check_heap_counted(void)
{
	size_t before = check_heap(), during;
	void *volatile p = malloc(64 * 1024);

	during = check_heap();
	free(p);
	return during >= before + 64 * 1024;
}

static inline int
check_main(void)
{
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}

#endif
