/*
 * `--check` of the three executables: the configuration checked offline
 * as the tools would read it (like `sshd -t`), and with `--forge` what
 * each forge token may do on the project's repository, with a warning
 * when the agents' token can merge into the primary branch.
 */
#ifndef CONFCHECK_H
#define CONFCHECK_H

struct cli;
struct config;

/*
 * Check cfg (loaded without an error for cli) for prog: the project's
 * repository checkout, and without a project file every project file of
 * $FACTORY_ROOT/projects (exe finds the factory as config_load() does);
 * with cli->forge also the forge (GET /user and the repository with each
 * token, the primary branch's protection with a token of an admin).
 * Returns 0 (nothing wrong; warnings may be given), 2 (a problem with the
 * configuration: "file: key: what is wrong" lines) or 1 (the forge did
 * not answer), with the text to print in *msg (NULL when there is none;
 * with cli->verbose a summary line; caller frees).  opts: the tool's
 * CLI_OPT_* (CLI_OPT_DEV_AGENTS: the dev agents' token is checked).
 */
int confcheck_run(const char *prog, unsigned opts, const struct cli *cli,
    const struct config *cfg, const char *exe, char **msg);

#endif
