/*
 * The typed JSON reads every forge and CI decoder goes through
 * (common/parse/json.c), on any document: the shapes of Gitea's issues, PRs,
 * comments and labels are read as the callers read them, and no accessor
 * returns an item of another type than it promises.
 */
#include "fuzz.h"
#include "json.h"

static const char *const fuzz_paths[] = {"number", "id", "title", "body",
    "state", "merged", "mergeable", "head.sha", "head.ref", "base.ref",
    "user.login", "labels", "head", "a.b.c.d", "", ".", "head..sha", NULL};

static void
fuzz_read(const cJSON *o)
{
	const char *s;
	const cJSON *it;
	long long n;
	int b;
	size_t i;

	for (i = 0; fuzz_paths[i] != NULL; i++) {
		const char *p = fuzz_paths[i];

		if ((s = json_str_at(o, p)) != NULL)
			FUZZ_ASSERT(cJSON_IsString(json_at(o, p)));
		if (json_int_at(o, p, &n) == 0)
			FUZZ_ASSERT(cJSON_IsNumber(json_at(o, p)));
		if (json_bool_at(o, p, &b) == 0)
			FUZZ_ASSERT(b == 0 || b == 1);
		if ((it = json_arr_at(o, p)) != NULL)
			FUZZ_ASSERT(cJSON_IsArray(it));
		if ((it = json_obj_at(o, p)) != NULL)
			FUZZ_ASSERT(cJSON_IsObject(it));
		if ((s = json_str(o, p)) != NULL)
			FUZZ_ASSERT(s ==
			    cJSON_GetStringValue(
				cJSON_GetObjectItemCaseSensitive(o, p)));
		(void)json_int(o, p, &n);
		(void)json_bool(o, p, &b);
		(void)json_arr(o, p);
		(void)json_obj(o, p);
	}
	(void)json_has_label(o, "backlog");
	(void)json_has_label(o, "in-progress");
	(void)json_item_int(o, &n);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[128];
	cJSON *root;
	const cJSON *e;
	char *printed;

	root = json_parse((const char *)data, size, err, sizeof(err));
	if (root == NULL) {
		FUZZ_ASSERT(memchr(err, '\0', sizeof(err)) != NULL);
		return 0;
	}
	fuzz_read(root);
	if (cJSON_IsArray(root) || cJSON_IsObject(root))
		cJSON_ArrayForEach (e, root)
			fuzz_read(e);
	printed = json_print(root);
	FUZZ_ASSERT(printed != NULL);
	free(printed);
	cJSON_Delete(root);
	return 0;
}
