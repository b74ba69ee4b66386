/*
 * Name checks: git's refname rules (refs.c: check_refname_component()
 * and strbuf_check_branch_ref()), Gitea's user and repository name rules
 * (modules/validation, models/repo), and the toolkit's own file-name
 * rule.
 */
#include <ctype.h>
#include <string.h>

#include "valid.h"

static const char *branch_component(const char *, size_t);
static int is_alnum(int);
static int is_word(int);
static const char *gitea_owner(const char *, size_t);
static const char *gitea_repo(const char *, size_t);

static int
is_alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

/* Gitea's \w plus '-' and '.'. */
static int
is_word(int c)
{
	return is_alnum(c) || c == '_' || c == '-' || c == '.';
}

/* One '/'-separated part of a branch name, len bytes. */
static const char *
branch_component(const char *s, size_t len)
{
	if (len == 0)
		return "empty path component ('//', or '/' at an end)";
	if (s[0] == '.')
		return "a path component starts with '.'";
	if (len >= 5 && memcmp(s + len - 5, ".lock", 5) == 0)
		return "a path component ends with '.lock'";
	return NULL;
}

const char *
valid_branch(const char *name)
{
	const char *p, *why;
	size_t len = strlen(name);

	if (len == 0)
		return "empty";
	if (name[0] == '-')
		return "starts with '-'";
	if (strcmp(name, "HEAD") == 0)
		return "'HEAD' is not a branch";
	if (name[len - 1] == '.')
		return "ends with '.'";
	if (strstr(name, "..") != NULL)
		return "contains '..'";
	if (strstr(name, "@{") != NULL)
		return "contains '@{'";
	for (p = name; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f ||
		    strchr(" ~^:?*[\\", *p) != NULL)
			return "contains a blank, a control character or one "
			       "of ~^:?*[\\";
	for (p = name;; p += len + 1) {
		len = strcspn(p, "/");
		if ((why = branch_component(p, len)) != NULL)
			return why;
		if (p[len] == '\0')
			return NULL;
	}
}

/* Gitea's IsValidUsername(): [0-9A-Za-z][-.\w]*, no "-._" runs or end. */
static const char *
gitea_owner(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || !is_alnum((unsigned char)s[0]))
		return "the owner must start with a letter or digit";
	for (i = 1; i < len; i++) {
		if (!is_word((unsigned char)s[i]))
			return "the owner has characters other than letters, "
			       "digits, '-', '_', '.'";
		if (!is_alnum((unsigned char)s[i]) &&
		    !is_alnum((unsigned char)s[i - 1]))
			return "the owner has two of '-', '_', '.' in a row";
	}
	if (!is_alnum((unsigned char)s[len - 1]))
		return "the owner ends with '-', '_' or '.'";
	return NULL;
}

/* Gitea's IsUsableRepoName(). */
static const char *
gitea_repo(const char *s, size_t len)
{
	static const char *const ends[] = {".git", ".wiki", ".rss", ".atom"};
	size_t i, n;

	if (len == 0)
		return "the repository name is empty";
	for (i = 0; i < len; i++)
		if (!is_word((unsigned char)s[i]))
			return "the repository name has characters other "
			       "than letters, digits, '-', '_', '.'";
	if (strstr(s, "..") != NULL || strcmp(s, "-") == 0 ||
	    strcmp(s, ".") == 0)
		return "the repository name is reserved or has '..'";
	for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		n = strlen(ends[i]);
		if (len >= n && strcmp(s + len - n, ends[i]) == 0)
			return "the repository name ends with a reserved "
			       "suffix (.git, .wiki, .rss, .atom)";
	}
	return NULL;
}

const char *
valid_repo(const char *owner_name)
{
	const char *slash = strchr(owner_name, '/'), *why;

	if (slash == NULL)
		return "expected 'owner/name'";
	if ((why = gitea_owner(owner_name, (size_t)(slash - owner_name))) !=
	    NULL)
		return why;
	if (strchr(slash + 1, '/') != NULL)
		return "expected 'owner/name' with one '/'";
	return gitea_repo(slash + 1, strlen(slash + 1));
}

const char *
valid_sha(const char *sha)
{
	size_t n;

	for (n = 0; sha[n] != '\0'; n++)
		if (!isxdigit((unsigned char)sha[n]) ||
		    isupper((unsigned char)sha[n]))
			return "not lower-case hex digits";
	return n >= 7 && n <= 64 ? NULL : "not 7 to 64 digits long";
}

int
valid_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
valid_blank(const char *s)
{
	return s == NULL || s[strspn(s, " \t\r\n\v\f")] == '\0';
}

const char *
valid_name(const char *name)
{
	const char *p;

	if (*name == '\0')
		return "empty";
	if (*name == '.')
		return "starts with '.'";
	for (p = name; *p != '\0'; p++)
		if (!is_word((unsigned char)*p))
			return "has characters other than letters, digits, "
			       "'.', '_', '-'";
	return NULL;
}

const char *
valid_url(const char *url)
{
	const char *host, *p;

	if (strncmp(url, "http://", 7) == 0)
		host = url + 7;
	else if (strncmp(url, "https://", 8) == 0)
		host = url + 8;
	else
		return "expected an http:// or https:// URL";
	if (*host == '\0' || *host == '/')
		return "the URL has no host";
	for (p = url; *p != '\0'; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return "the URL has a blank or a control character";
	return NULL;
}

const char *
valid_number(long long n)
{
	if (n <= 0)
		return "not a positive number";
	if (n > VALID_NUMBER_MAX)
		return "above 2^53-1";
	return NULL;
}

const char *
valid_number_at(const char *text, const char **end, long long *out)
{
	const char *p = text;
	long long v = 0;

	if (*p < '0' || *p > '9')
		return "not a number";
	for (; *p >= '0' && *p <= '9'; p++) {
		/* Past the limit: the rest of the run is read, not kept. */
		if (v <= VALID_NUMBER_MAX)
			v = v * 10 + (*p - '0');
	}
	if (end != NULL)
		*end = p;
	if (text[0] == '0' && p - text > 1)
		return "a number with a leading zero";
	if (valid_number(v) != NULL)
		return valid_number(v);
	*out = v;
	return NULL;
}

const char *
valid_number_text(const char *text, long long *out)
{
	const char *end, *why;
	long long v;

	if ((why = valid_number_at(text, &end, &v)) != NULL)
		return why;
	if (*end != '\0')
		return "not a number";
	*out = v;
	return NULL;
}
