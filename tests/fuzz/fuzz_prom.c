/*
 * The Prometheus writer and its reader: any previous file is read back
 * without harm, and what is written reads back to the same text (the
 * escaping and the parsing agree).  The input's fields (NUL-separated)
 * after the first are also tried as label values.
 */
#include "fuzz.h"
#include "prom.h"

static struct prom *
fuzz_prom(void)
{
	struct prom *p = prom_new("dev-poll", "fuzz");

	FUZZ_ASSERT(p != NULL);
	FUZZ_ASSERT(
	    prom_declare(p, "disinto_x_total", PROM_COUNTER, "A.") == 0);
	FUZZ_ASSERT(prom_declare(p, "disinto_y", PROM_GAUGE, "B.") == 0);
	FUZZ_ASSERT(prom_keep(p, "disinto_y") == 0);
	FUZZ_ASSERT(prom_declare(p, "disinto_z", PROM_GAUGE, "C.") == 0);
	return p;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prom *p = fuzz_prom(), *q = fuzz_prom();
	const char *l[] = {"v", NULL, NULL};
	char *first, *second, *f;
	size_t pos = 0;

	(void)prom_load_text(p, (const char *)data, size);
	free(fuzz_field(data, size, &pos));
	while ((f = fuzz_field(data, size, &pos)) != NULL) {
		l[1] = f;
		(void)prom_add(p, "disinto_x_total", l, 1);
		(void)prom_set(p, "disinto_y", l, -0.5);
		free(f);
	}
	first = prom_render(p);
	FUZZ_ASSERT(prom_load_text(q, first, strlen(first)) <= 2 * 4096);
	second = prom_render(q);
	FUZZ_ASSERT(strcmp(first, second) == 0);
	free(first);
	free(second);
	prom_free(p);
	prom_free(q);
	return 0;
}
