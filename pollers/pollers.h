/*
 * What the three executables share outside common/, linked into each:
 * the one place that knows them all, and the main() they share.  common/
 * names no tool and prints nothing; a tool's own description is its
 * main.c (struct tick_tool).
 */
#ifndef POLLERS_H
#define POLLERS_H

#include "status.h"

struct tick_tool;

/*
 * The tools' files `--status` shows (status.h), whichever tool is asked:
 * dev-poll's status line and log and review-poll's status line of each
 * project; supervisor-poll's status line and log, and the review log, of
 * the factory.
 */
extern const struct status_file pollers_report[];

/*
 * The main() of a tool: tick_main() for tool with its state in ctx
 * (zeroed), then what it says printed: to stdout when the exit status is
 * 0, else to stderr.  Returns the exit status.
 */
int pollers_main(const struct tick_tool *tool, void *ctx, int argc,
    char *argv[]);

#endif
