/*
 * Metrics for Prometheus in the text exposition format (0.0.4), written
 * for node_exporter's textfile collector: each tick collects gauges and
 * counters in a struct prom and replaces $FACTORY_ROOT/metrics/TOOL-P.prom
 * in one rename.  Every series carries the labels tool="TOOL" and
 * project="P" (when a project is given), so the files of several tools and
 * projects never hold the same series.
 *
 * Names follow the Prometheus conventions, and a name that breaks them is
 * refused when it is declared: lower-case snake_case without colons, base
 * units (seconds, bytes, ratios; no "_ms", "_minutes", "_kilobytes"),
 * counters and only counters end in "_total".  A tick is a short-lived
 * process, so a counter is cumulative only when the tick reads the
 * previous file back first (prom_load()); a restart from zero, when the
 * file is gone, is a counter reset, which Prometheus handles.
 *
 * Functions returning -1 put the reason in prom_error().
 */
#ifndef PROM_H
#define PROM_H

#include <stddef.h>

enum prom_type { PROM_GAUGE, PROM_COUNTER };

struct prom;

/*
 * A new, empty set of metrics for tool ("dev-poll") and project (NULL for
 * none, e.g. the supervisor).  Both must be names of the run-file kind,
 * [A-Za-z0-9._-] not starting with '.', since they name the file.
 * Returns NULL when one is not.  Free with prom_free().
 */
struct prom *prom_new(const char *tool, const char *project);
/* Free the set; NULL is accepted. */
void prom_free(struct prom *);
/* Why the last call failed; valid until the next call. */
const char *prom_error(const struct prom *);

/*
 * Declare the metric family name with its type and help text (one line of
 * UTF-8 saying what is measured, in which unit).  Declaring a family again
 * with the same type and help is allowed; anything else is an error.
 * Families are written in the order they were first declared.
 */
int prom_declare(struct prom *, const char *name, enum prom_type,
    const char *help);
/*
 * Keep the gauge family name across ticks: prom_load() reads its values
 * back, so a value the tick does not set (e.g. the time of the last
 * success, on a failed tick) stays what the last tick wrote.  Counters
 * are always kept.
 */
int prom_keep(struct prom *, const char *name);

/*
 * Set the series of family name with labels (a NULL-ended array of name,
 * value pairs, or NULL for none; order does not matter) to value.  Label
 * names are [A-Za-z_][A-Za-z0-9_]*, neither "__"-prefixed nor "le",
 * "quantile", "tool" or (with a project) "project"; values are UTF-8 (at
 * most 512 bytes).  A counter's value must be finite and not negative.
 */
int prom_set(struct prom *, const char *name, const char *const *labels,
    double value);
/*
 * Add delta to the series (created at 0 when new).  A counter's delta must
 * be finite and not negative.
 */
int prom_add(struct prom *, const char *name, const char *const *labels,
    double delta);

/*
 * The metrics as text exposition format: for each family with at least
 * one series, "# HELP", "# TYPE", then its series.  Caller frees.
 */
char *prom_render(const struct prom *);
/* The file of this set in dir: "dir/TOOL-P.prom" or "dir/TOOL.prom". */
char *prom_path(const struct prom *, const char *dir);

/*
 * Read back, from text in the exposition format, the series of the
 * counters and kept gauges declared so far, as prom_set() would set them
 * (so call it after the declarations and before any prom_add()).  The
 * "tool" and "project" labels of the text are ignored; lines that are not
 * well-formed samples of such families are skipped.  Returns the number
 * of series read.
 */
size_t prom_load_text(struct prom *, const char *text, size_t len);
/*
 * prom_load_text() on the file prom_write() writes in dir.  Returns 0
 * (also when there is no such file yet), or -1 when it exists and cannot
 * be read.
 */
int prom_load(struct prom *, const char *dir);
/*
 * Write prom_render()'s text to prom_path(dir) atomically (a temporary
 * file in dir, then rename(2); mode 0644 so the collector can read it),
 * creating dir (0755) when missing.  Returns 0, or -1 with errno set.
 */
int prom_write(struct prom *, const char *dir);

#endif
