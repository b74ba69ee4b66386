/*
 * The CI decisions on decoded JSON: a PR's file list (ci_files_need_ci),
 * pipeline and commit states, and the infrastructure classification of a
 * failed step, fed from cJSON_ParseWithLength() of the input.
 */
#include "ci.h"
#include "fuzz.h"
#include "json.h"

static void
fuzz_step(const cJSON *step)
{
	char reason[64];
	long long code = 0;
	int infra;

	memset(reason, 'x', sizeof(reason));
	(void)json_int(step, "exit_code", &code);
	infra = ci_step_is_infra(json_str(step, "name"), code,
	    json_str(step, "log"), reason, sizeof(reason));
	FUZZ_ASSERT(infra == 0 || infra == 1);
	if (infra)
		FUZZ_ASSERT(memchr(reason, '\0', sizeof(reason)) != NULL);
}

static void
fuzz_states(const cJSON *o)
{
	enum ci_state st;
	const char *s;

	if (ci_state_from_woodpecker(json_str(o, "status"), &st) == 0)
		FUZZ_ASSERT(st >= CI_UNKNOWN && st <= CI_CANCELED);
	st = ci_state_from_forge(json_str(o, "state"));
	FUZZ_ASSERT(st >= CI_UNKNOWN && st <= CI_CANCELED);
	FUZZ_ASSERT(!(ci_passed(st, 1) && ci_failed(st, 1)));
	FUZZ_ASSERT(!(ci_passed(st, 0) && ci_failed(st, 0)));
	FUZZ_ASSERT(ci_state_name(st) != NULL);
	if ((s = json_str(o, "filename")) != NULL)
		FUZZ_ASSERT(ci_path_is_code(s) == 0 || ci_path_is_code(s) == 1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *root = cJSON_ParseWithLength((const char *)data, size);
	const cJSON *e;
	int need;

	if (root == NULL)
		return 0;
	need = ci_files_need_ci(root);
	FUZZ_ASSERT(need == 0 || need == 1);
	/* An empty or unreadable list needs CI, to be safe. */
	if (!cJSON_IsArray(root) || cJSON_GetArraySize(root) == 0)
		FUZZ_ASSERT(need == 1);
	fuzz_states(root);
	fuzz_step(root);
	cJSON_ArrayForEach (e, root) {
		fuzz_states(e);
		fuzz_step(e);
	}
	cJSON_Delete(root);
	return 0;
}
