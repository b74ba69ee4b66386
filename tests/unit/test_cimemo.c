/*
 * Unit tests for the CI memo (common/world/cimemo.c): the file's lines
 * (well-formed ones only, by SHA), when a remembered state is read again
 * (a final one after half an hour or so, spread by the SHA; one not final
 * every tick while fresh, then with a back-off that doubles up to its
 * cap; a marked one at once), how SINCE carries over, the save that
 * keeps the open heads only and lets a later read of another tool stand,
 * and the marks a webhook writes (recent ones, bounded).
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "act.h"
#include "buf.h"
#include "check.h"
#include "cimemo.h"
#include "file.h"

#define SA "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SB "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define SC "cccccccccccccccccccccccccccccccccccccccc"
#define T0 1700000000LL

static char dir[] = "/tmp/test_cimemo.XXXXXX";

/* Only well-formed lines count; found by SHA. */
static void
test_parse(void)
{
	struct cimemo c;
	const struct cimemo_entry *e;

	cimemo_parse(&c,
	    SB " success 1 100 200\n"
	       "garbage\n" SA " pending 0 50 60\n" SC " unknown 0 1 2\n" SC
	       " success 2 1 2\n" SC " success 1 -1 2\n" SC
	       " success 1 1 2 extra\n"
	       "abc success 1 1 2\n" SA " failure 1 7 8\n",
	    SA " 300\n" SA " 400\nxyz 5\n" SB " 10\n");
	CHECK_INT(c.n, 2);
	e = cimemo_find(&c, SA);
	CHECK(e != NULL);
	/* A SHA twice: the first line stands. */
	CHECK_INT(e->state, CI_PENDING);
	CHECK_INT(e->final, 0);
	CHECK_INT(e->since, 50);
	CHECK_INT(e->at, 60);
	e = cimemo_find(&c, SB);
	CHECK(e != NULL && e->state == CI_SUCCESS && e->final == 1);
	CHECK(cimemo_find(&c, SC) == NULL);
	CHECK(cimemo_find(&c, "nothex") == NULL);
	CHECK_INT(cimemo_marked(&c, SA), 400);
	CHECK_INT(cimemo_marked(&c, SB), 10);
	CHECK_INT(cimemo_marked(&c, SC), 0);
	cimemo_free(&c);
	cimemo_parse(&c, NULL, NULL);
	CHECK_INT(c.n, 0);
	CHECK(cimemo_find(&c, SA) == NULL);
	cimemo_free(&c);
}

static struct cimemo_entry
entry(const char *sha, enum ci_state st, int final, long long since,
    long long at)
{
	struct cimemo_entry e;

	memset(&e, 0, sizeof(e));
	memcpy(e.sha, sha, strlen(sha));
	e.state = st;
	e.final = final;
	e.since = since;
	e.at = at;
	return e;
}

/* A final state stands for 25 to 35 minutes, by the SHA. */
static void
test_due_final(void)
{
	struct cimemo_entry a = entry(SA, CI_SUCCESS, 1, T0, T0),
			    b = entry(SB, CI_FAILURE, 1, T0, T0);
	long long t, due_a = 0, due_b = 0;

	CHECK_INT(cimemo_due(&a, 0, T0), 0);
	CHECK_INT(cimemo_due(&a, 0, T0 + 60), 0);
	CHECK_INT(cimemo_due(&a, 0, T0 + 1400), 0);
	CHECK_INT(cimemo_due(&a, 0, T0 + 2100), 1);
	for (t = T0; t <= T0 + 2100 && (due_a == 0 || due_b == 0); t += 5) {
		if (due_a == 0 && cimemo_due(&a, 0, t))
			due_a = t;
		if (due_b == 0 && cimemo_due(&b, 0, t))
			due_b = t;
	}
	CHECK(due_a >= T0 + CIMEMO_FINAL_RECHECK - CIMEMO_SLACK);
	CHECK(due_b >= T0 + CIMEMO_FINAL_RECHECK - CIMEMO_SLACK);
	CHECK(due_a != due_b);
	/* A read in the future (a clock set back) is read again. */
	CHECK_INT(cimemo_due(&a, 0, T0 - 10), 1);
}

/* Not final: every tick while fresh, then every 2, 4, 8, 10 minutes. */
static void
test_due_pending(void)
{
	static const struct {
		long long age, waited;
		int due;
	} rows[] = {
	    {0, 0, 1},
	    {60, 60, 1},
	    {299, 60, 1},
	    {300, 60, 0},
	    {300, 110, 1},
	    {599, 119, 1},
	    {600, 120, 0},
	    {600, 230, 1},
	    {1200, 400, 0},
	    {1200, 470, 1},
	    {2400, 500, 0},
	    {2400, 590, 1},
	    {86400, 500, 0},
	    {86400, 600, 1},
	};
	struct cimemo_entry e;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		e = entry(SA, CI_PENDING, 0, T0, T0 + rows[i].age);
		if (cimemo_due(&e, 0, T0 + rows[i].age + rows[i].waited) !=
		    rows[i].due) {
			printf("#   row %zu: age %lld, waited %lld\n", i,
			    rows[i].age, rows[i].waited);
			CHECK(0);
		}
	}
	/* No statuses yet counts as not final too. */
	e = entry(SA, CI_NONE, 0, T0, T0 + 3000);
	CHECK_INT(cimemo_due(&e, 0, T0 + 3060), 0);
	CHECK_INT(cimemo_due(&e, 0, T0 + 3600), 1);
}

/* A mark as new as the read, or newer, makes it due at once. */
static void
test_due_marked(void)
{
	struct cimemo_entry f = entry(SA, CI_SUCCESS, 1, T0, T0),
			    p = entry(SB, CI_PENDING, 0, T0, T0 + 3000);

	CHECK_INT(cimemo_due(&f, T0 - 1, T0 + 60), 0);
	CHECK_INT(cimemo_due(&f, T0, T0 + 60), 1);
	CHECK_INT(cimemo_due(&f, T0 + 30, T0 + 60), 1);
	CHECK_INT(cimemo_due(&p, T0 + 3001, T0 + 3010), 1);
	CHECK_INT(cimemo_due(&p, T0 + 2999, T0 + 3010), 0);
}

/* SINCE runs on while a head stays not final, and starts again after. */
static void
test_entry_set(void)
{
	struct cimemo_entry prev = entry(SA, CI_NONE, 0, T0, T0 + 100), e;

	CHECK_INT(cimemo_entry_set(&e, &prev, SA, CI_PENDING, 0, T0 + 200), 0);
	CHECK_INT(e.since, T0);
	CHECK_INT(e.at, T0 + 200);
	CHECK_INT(e.final, 0);
	CHECK_INT(cimemo_entry_set(&e, &prev, SA, CI_SUCCESS, 1, T0 + 300), 0);
	CHECK_INT(e.since, T0 + 300);
	CHECK_INT(e.final, 1);
	/* A re-run after a final state is young again. */
	prev = e;
	CHECK_INT(cimemo_entry_set(&e, &prev, SA, CI_PENDING, 0, T0 + 900), 0);
	CHECK_INT(e.since, T0 + 900);
	CHECK_INT(cimemo_entry_set(&e, NULL, SA, CI_PENDING, 0, T0 + 5), 0);
	CHECK_INT(e.since, T0 + 5);
	CHECK_INT(cimemo_entry_set(&e, NULL, "xyz", CI_PENDING, 0, T0), -1);
	CHECK_INT(cimemo_entry_set(&e, NULL, SA, CI_UNKNOWN, 0, T0), -1);
}

static char *
slurp(const char *path)
{
	struct buf b;

	buf_init(&b, 0);
	if (file_read(path, 1 << 20, &b) != 0)
		buf_reset(&b);
	if (b.data == NULL)
		buf_puts(&b, "");
	return buf_steal(&b);
}

/*
 * The open heads only; another tool's later read of a head stands; no
 * write when nothing changed; nothing in a dry run.
 */
static void
test_save(void)
{
	struct cimemo_entry v[2];
	struct act act, dry;
	char path[64], *text;
	struct stat st1, st2;

	snprintf(path, sizeof(path), "%s/memo", dir);
	memset(&act, 0, sizeof(act));
	memset(&dry, 0, sizeof(dry));
	dry.dry_run = 1;
	v[0] = entry(SB, CI_PENDING, 0, T0, T0 - 1000);
	v[1] = entry(SA, CI_FAILURE, 1, T0, T0);
	CHECK(file_write_atomic(path,
		  SC " success 1 1 2\n" SB " success 1 10 1700000900\n",
		  strlen(SC " success 1 1 2\n" SB " success 1 10 1700000900\n"),
		  0644, 0) == 0);
	cimemo_save(&dry, path, v, 2);
	text = slurp(path);
	CHECK_STR(text, SC " success 1 1 2\n" SB " success 1 10 1700000900\n");
	free(text);
	cimemo_save(&act, path, v, 2);
	text = slurp(path);
	CHECK_STR(text,
	    SA " failure 1 1700000000 1700000000\n" SB
	       " success 1 10 1700000900\n");
	free(text);
	CHECK(stat(path, &st1) == 0);
	sleep(1);
	cimemo_save(&act, path, v, 2);
	CHECK(stat(path, &st2) == 0);
	CHECK_INT(st2.st_mtime, st1.st_mtime);
	(void)remove(path);
}

/* Marks: newest per SHA, old ones dropped, at most CIMEMO_MARKS_MAX. */
static void
test_mark(void)
{
	char path[64], lockp[64], sha[41];
	struct cimemo c;
	long long i;

	snprintf(path, sizeof(path), "%s/marks", dir);
	snprintf(lockp, sizeof(lockp), "%s/marks.lock", dir);
	CHECK(file_write_atomic(path, SC " 1\n", strlen(SC " 1\n"), 0644, 0) ==
	    0);
	CHECK_INT(cimemo_mark(path, lockp, SA, T0), 0);
	CHECK_INT(cimemo_mark(path, lockp, SA, T0 + 5), 0);
	CHECK_INT(cimemo_mark(path, lockp, SB, T0 + 6), 0);
	CHECK_INT(cimemo_mark(path, lockp, "not a sha", T0 + 7), -1);
	cimemo_load(&c, "/nonexistent", path);
	CHECK_INT(c.nmarks, 2);
	CHECK_INT(cimemo_marked(&c, SA), T0 + 5);
	CHECK_INT(cimemo_marked(&c, SB), T0 + 6);
	CHECK_INT(cimemo_marked(&c, SC), 0);
	cimemo_free(&c);
	for (i = 0; i < CIMEMO_MARKS_MAX + 20; i++) {
		snprintf(sha, sizeof(sha), "%040llx", i + 1);
		CHECK_INT(cimemo_mark(path, lockp, sha, T0 + 100 + i), 0);
	}
	cimemo_load(&c, "/nonexistent", path);
	CHECK_INT(c.nmarks, CIMEMO_MARKS_MAX);
	CHECK_INT(cimemo_marked(&c, sha), T0 + 100 + i - 1);
	CHECK_INT(cimemo_marked(&c, SA), 0);
	cimemo_free(&c);
	(void)remove(path);
	(void)remove(lockp);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL)
		return 1;
	RUN(test_parse);
	RUN(test_due_final);
	RUN(test_due_pending);
	RUN(test_due_marked);
	RUN(test_entry_set);
	RUN(test_save);
	RUN(test_mark);
	(void)rmdir(dir);
	return check_main();
}
