/*
 * Names the configuration hands to git, the forge, tmux and the file
 * system, checked the way those check them.  Each function returns NULL
 * when the name is fine, else why it is not (a static string).
 */
#ifndef VALID_H
#define VALID_H

/* A branch name as `git check-ref-format --branch` accepts it. */
const char *valid_branch(const char *name);
/* "owner/name" as Gitea accepts a user or organisation and a repository. */
const char *valid_repo(const char *owner_name);
/*
 * A name that becomes part of file and tmux session names: letters,
 * digits, '.', '_', '-', not starting with '.'.
 */
const char *valid_name(const char *name);
/* An http:// or https:// URL with a host and no blanks or controls. */
const char *valid_url(const char *url);

#endif
