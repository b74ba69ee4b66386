/*
 * Tests for the guard of an agent's commands
 * (common/agent/agent_guard.c, guard_shell.c, guard_http.c): tables of
 * commands an agent in /run/p-worktree-1 may and may not run, with the
 * factory in /srv/factory, the run directory /run and the forge API at
 * http://forge:3000/api/v1/repos/o/r.  The refusals hold in the forms
 * the real agent CLI used to walk past the guard (a close with its body
 * before the URL, `cd /` then a relative rm) and in the forms built
 * from variables, pipelines and here-documents; a table of commands
 * agents run every day must pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_guard.h"
#include "check.h"

static const char *const own[] = {"/run/dev-session-p-1.phase",
    "/run/dev-impl-summary-p-1.txt", "/run/sessions/active/dev-p-1/", NULL};

static const struct agent_guard guard = {
    .primary_branch = "master",
    .worktree = "/run/p-worktree-1",
    .factory_root = "/srv/factory",
    .run_dir = "/run",
    .home = "/home/agent",
    .cwd = "/run/p-worktree-1/src",
    .forge_url = "http://forge:3000",
    .forge_api = "http://forge:3000/api/v1/repos/o/r",
    .own = own,
};

/* A command and whether it is refused, with a word its reason holds. */
struct gcase {
	const char *cmd;
	int refused;
	const char *reason;
};

static int
run_cases(const struct agent_guard *g, const struct gcase *c, size_t n)
{
	char why[1024];
	size_t i;
	int r, bad = 0;

	for (i = 0; i < n; i++) {
		r = agent_guard_check(g, c[i].cmd, why, sizeof(why));
		if (r != c[i].refused ||
		    (r && strstr(why, c[i].reason) == NULL) ||
		    (!r && why[0] != '\0')) {
			printf("#   '%s': %s (%s)\n", c[i].cmd,
			    r ? "refused" : "allowed", why);
			bad = 1;
		}
	}
	return bad;
}

#define RUN_CASES(g, t) CHECK(run_cases(g, t, sizeof(t) / sizeof(t[0])) == 0)

static void
test_guard_push(void)
{
	static const struct gcase t[] = {
	    {"git push origin fix/issue-1", 0, NULL},
	    {"git push -u origin HEAD", 0, NULL},
	    {"git push --force-with-lease origin fix/issue-1", 0, NULL},
	    {"git push -f origin fix/issue-1:fix/issue-1", 0, NULL},
	    {"git push origin master", 0, NULL},
	    {"git push --force origin master", 1, "primary branch 'master'"},
	    {"git push -f origin HEAD:master", 1, "primary branch"},
	    {"git push -fu origin refs/heads/master", 1, "primary branch"},
	    {"git push origin +HEAD:master", 1, "primary branch"},
	    {"git -C /run/p-worktree-1 push --force-with-lease=master origin "
	     "master",
		1, "primary branch"},
	    {"git push --force", 1, "without a branch"},
	    {"git push -f origin", 1, "without a branch"},
	    {"git push --mirror --force origin", 1, "primary branch"},
	    {"git push origin :master", 1, "deleting the primary"},
	    {"git push --delete origin master", 1, "deleting the primary"},
	    {"cd .. && git push -f origin master", 1, "primary branch"},
	    {"echo x; sudo -u dev git push -f origin master", 1, "primary"},
	    {"sh -c 'git push -f origin master'", 1, "primary branch"},
	    {"bash -lc \"eval 'git push -f origin master'\"", 1, "primary"},
	    {"echo $(git push -f origin master)", 1, "primary branch"},
	    {"x=\"`git push -f origin master`\"", 1, "primary branch"},
	    {"B=master; git push -f origin $B", 1, "primary branch"},
	    {"git push -f origin \"$BRANCH\"", 1, "cannot tell"},
	    {"echo 'git push -f origin master'", 0, NULL},
	    {"git commit -m 'never git push -f origin master'", 0, NULL},
	};

	RUN_CASES(&guard, t);
}

static void
test_guard_checkout(void)
{
	static const struct gcase t[] = {
	    {"git checkout fix/issue-1", 0, NULL},
	    {"git checkout -b fix/issue-2 master", 0, NULL},
	    {"git switch -c fix/issue-2 origin/master", 0, NULL},
	    {"git checkout master -- README.md", 0, NULL},
	    {"git checkout origin/master -- a b", 0, NULL},
	    {"git rebase origin/master", 0, NULL},
	    {"git diff master...HEAD", 0, NULL},
	    {"git checkout master", 1, "switching to the primary"},
	    {"git switch master", 1, "switching to the primary"},
	    {"git switch --detach master", 1, "switching"},
	    {"git checkout -q origin/master", 1, "switching"},
	    {"git checkout refs/remotes/origin/master", 1, "switching"},
	    {"git -c x=y checkout master", 1, "switching"},
	};

	RUN_CASES(&guard, t);
}

static void
test_guard_rm(void)
{
	static const struct gcase t[] = {
	    {"rm -rf build", 0, NULL},
	    {"rm -rf ../src/out /run/p-worktree-1/tmp", 0, NULL},
	    {"rm -rf /tmp/scratch-1", 0, NULL},
	    {"rm -f /etc/x", 0, NULL},
	    {"git rm -r --cached src", 0, NULL},
	    {"rm -rf /", 1, "outside your worktree"},
	    {"rm -rf /etc", 1, "'/etc'"},
	    {"rm -r -f ../../p-worktree-2", 1, "'/run/p-worktree-2'"},
	    {"rm --recursive --force /home/agent/x", 1, "outside"},
	    {"rm -Rf ~", 1, "'/home/agent'"},
	    {"rm -rf $HOME/.claude", 1, "'/home/agent/.claude'"},
	    {"rm -rf ${FACTORY_ROOT}/state", 1, "'/srv/factory/state'"},
	    {"rm -rf /tmp", 1, "outside"},
	    {"rm -rf /tmp/*", 1, "outside"},
	    {"rm -rf /run", 1, "outside"},
	    {"rm -rf -- -x /srv", 1, "'/srv'"},
	    {"find . -name x | xargs rm -rf /opt", 1, "'/opt'"},
	    {"cd /x; rm -rf /usr/lib", 1, "'/usr/lib'"},
	    {"rm -rf /run/p-worktree-1/../..", 1, "'/'"},
	    /* What it cannot locate. */
	    {"rm -rf \"$OUT\"", 1, "cannot tell what 'rm -r' removes"},
	    {"rm -rf $(cat list)", 1, "a variable or a command's output"},
	    {"cd \"$SOMEWHERE\" && rm -rf build", 1, "directory it runs in"},
	};

	RUN_CASES(&guard, t);
}

/*
 * `cd` moves where the commands after it run, in the same list: the
 * form the real CLI used (cd / && rm -rf <relative path>).
 */
static void
test_guard_cd(void)
{
	static const struct gcase t[] = {
	    {"cd / && rm -rf srv/factory/x", 1, "'/srv/factory/x'"},
	    {"cd / && rm -rf etc/ssl", 1, "'/etc/ssl'"},
	    {"cd /; rm -rf home", 1, "'/home'"},
	    {"cd /tmp\nrm -rf ../etc", 1, "'/etc'"},
	    {"cd ~ && rm -rf .ssh", 1, "'/home/agent/.ssh'"},
	    {"cd && rm -rf x", 1, "'/home/agent/x'"},
	    {"cd .. && cd .. && rm -rf p-worktree-2", 1, "'/run/p-worktree-2'"},
	    {"pushd /etc && rm -rf ssl; popd", 1, "'/etc/ssl'"},
	    {"cd /etc; cd - && rm -rf build", 0, NULL},
	    {"D=/etc; cd $D && rm -rf x", 1, "'/etc/x'"},
	    {"cd $(dirname /etc/x) && rm -rf y", 1, "directory it runs in"},
	    {"env -C / rm -rf etc", 1, "'/etc'"},
	    /* A subshell's and a pipeline's cd stay in them. */
	    {"(cd /etc) && rm -rf build", 0, NULL},
	    {"(cd /etc && rm -rf ssl)", 1, "'/etc/ssl'"},
	    {"cd /etc | true; rm -rf build", 0, NULL},
	    {"x=$(cd / && pwd); rm -rf build", 0, NULL},
	    {"cd build && rm -rf out && cd .. && rm -rf dist", 0, NULL},
	    {"cd /tmp && rm -rf scratch-2", 0, NULL},
	    {"cd \"$(git rev-parse --show-toplevel)\" && rm -rf build", 0,
		NULL},
	    {"cd $(pwd)/.. && rm -rf node_modules", 0, NULL},
	    {"D=$(mktemp -d) && cd $D && rm -rf x && rm -rf \"$D\"", 0, NULL},
	};

	RUN_CASES(&guard, t);
}

static void
test_guard_api(void)
{
	static const struct gcase t[] = {
	    {"curl -s $FORGE_API/pulls/3", 0, NULL},
	    {"curl -X POST $FORGE_API/issues/3/comments -d '{\"body\": "
	     "\"hi\"}'",
		0, NULL},
	    {"curl -X POST \"$FORGE_API/pulls/12/merge\" -d '{\"Do\": "
	     "\"merge\"}'",
		1, "merging through the forge API"},
	    {"curl -X PATCH $FORGE_API/issues/3 -d '{\"state\": \"closed\"}'",
		1, "closing issues"},
	    {"curl -X PATCH $FORGE_API/pulls/3 -d state=closed", 1, "closing"},
	    {"curl -X PATCH $FORGE_API/issues/3 -d '{\"state\": \"open\"}'", 0,
		NULL},
	    {"curl -X PATCH $FORGE_API/issues/3 -d '{\"title\": \"x\"}'", 0,
		NULL},
	    {"tea pr merge 3", 1, "merging through the forge API"},
	    {"tea issues close 3", 1, "closing issues"},
	    {"tea issues list", 0, NULL},
	    {"gh pr merge 3 --squash", 1, "merging"},
	    {"gh issue close 3", 1, "closing"},
	    {"gh pr review 3 --approve", 1, "review bot's job"},
	    {"gh issue edit 3 --add-label blocked", 1, "labels"},
	    {"gh issue edit 3 --add-label bug", 0, NULL},
	    {"gh api repos/o/r/pulls/3/merge -X PUT", 1, "merging"},
	    {"gh api repos/o/r/issues/3 -f state=closed", 1, "closing"},
	    {"gh api repos/o/r/issues/3/comments", 0, NULL},
	    /* Merging with a variable method or URL. */
	    {"curl -X \"$M\" $FORGE_API/pulls/3/merge", 1, "may be a merge"},
	    {"curl -X POST \"$FORGE_API/pulls/$N/merge\"", 1, "merging"},
	    {"curl -X POST \"$FORGE_API/$WHAT\"", 1, "its URL"},
	    {"curl -X POST \"$URL\" -d '{}'", 1, "cannot tell"},
	    {"curl -X POST https://example.com/hook -d '{}'", 0, NULL},
	    {"curl -X PATCH \"$FORGE_API/issues/$N\" -d '{\"title\": \"x\"}'",
		0, NULL},
	    {"curl -X POST \"$FORGE_API/issues/$N/comments\" -d '{\"body\": "
	     "\"x\"}'",
		0, NULL},
	    {"curl -X PATCH \"$FORGE_API/issues/$N\" -d '{\"state\": "
	     "\"closed\"}'",
		1, "closing"},
	    {"curl -X POST \"$WEBHOOK/comments\" -d '{}'", 1, "cannot tell"},
	};

	RUN_CASES(&guard, t);
}

/*
 * A close (or any judged call) in the forms the CLI and agents write:
 * the body before the URL, in a variable, in a file, on stdin, from a
 * here-document; any host; GitHub's forms.
 */
static void
test_guard_api_forms(void)
{
	static const struct gcase t[] = {
	    {"curl -X PATCH -d '{\"state\":\"closed\"}' -H \"Authorization: "
	     "token $FORGE_TOKEN\" \"$FORGE_API/issues/5\"",
		1, "closing issues"},
	    {"curl -sS -H 'Content-Type: application/json' -d "
	     "'{\"state\":\"closed\"}' -XPATCH $FORGE_URL/api/v1/repos/o/r/"
	     "issues/5",
		1, "closing"},
	    {"curl --data '{\"state\":\"closed\"}' --request PATCH "
	     "http://127.0.0.1:3000/api/v1/repos/o/r/issues/5",
		1, "closing"},
	    {"B='{\"state\":\"closed\"}'; curl -X PATCH -d \"$B\" "
	     "$FORGE_API/issues/5",
		1, "closing"},
	    {"export B='{\"state\": \"closed\"}'\ncurl -X PATCH --data-raw "
	     "\"$B\" $FORGE_API/issues/5",
		1, "closing"},
	    {"U=$FORGE_API/issues/5; curl -X PATCH -d state=closed \"$U\"", 1,
		"closing"},
	    {"U=$FORGE_API; curl -X PATCH -d state=closed \"$U/pulls/7\"", 1,
		"closing"},
	    {"curl -X PATCH -d \"$BODY\" $FORGE_API/issues/5", 1, "its body"},
	    {"curl -X PATCH -d '{\"state\": \"'$S'\"}' $FORGE_API/issues/5", 1,
		"its body"},
	    {"curl -X PATCH -d @- $FORGE_API/issues/5 <<'EOF'\n"
	     "{\"state\": \"closed\"}\nEOF",
		1, "closing"},
	    {"curl -X PATCH --data-binary @- $FORGE_API/issues/5 <<<"
	     "'{\"state\":\"closed\"}'",
		1, "closing"},
	    {"echo '{\"state\":\"closed\"}' | curl -X PATCH -d @- "
	     "$FORGE_API/issues/5",
		1, "closing"},
	    {"jq -n '{state: \"closed\"}' | curl -X PATCH -d @- "
	     "$FORGE_API/issues/5",
		1, "its body"},
	    {"cat > /tmp/b.json <<EOF\n{\"state\": \"closed\"}\nEOF\n"
	     "curl -X PATCH -d @/tmp/b.json $FORGE_API/issues/5",
		1, "closing"},
	    {"jq -n '{state:\"closed\"}' > /tmp/b2.json && curl -X PATCH -d "
	     "@/tmp/b2.json $FORGE_API/issues/5",
		1, "its body"},
	    {"printf '{\"state\":\"closed\"}' > /tmp/b3.json; curl -X PATCH "
	     "-T /tmp/b3.json $FORGE_API/issues/5",
		1, "closing"},
	    {"curl -X PATCH $FORGE_API/issues/5 -d @/nonexistent/body.json", 1,
		"its body"},
	    {"http PATCH $FORGE_API/issues/5 state=closed", 1, "closing"},
	    {"http --json PATCH $FORGE_API/pulls/5 state=closed", 1, "closing"},
	    {"xh patch $FORGE_API/issues/5 state=closed", 1, "closing"},
	    {"wget --method=PATCH --body-data='{\"state\":\"closed\"}' "
	     "$FORGE_API/issues/5",
		1, "closing"},
	    {"curl -X PUT https://api.github.com/repos/o/r/pulls/5/merge", 1,
		"merging"},
	    {"curl -X PATCH $FORGE_API/issues/5?token=x -d state=closed", 1,
		"closing"},
	    {"curl -X PATCH $FORGE_API//issues//5/ -d state=closed", 1,
		"closing"},
	    {"curl -X PATCH $FORGE_API/issues/%35 -d state=closed", 1,
		"closing"},
	    /* Reads of the same paths pass. */
	    {"curl -s $FORGE_API/issues/5", 0, NULL},
	    {"curl -sG -d state=closed $FORGE_API/issues", 0, NULL},
	    {"curl -I $FORGE_API/pulls/5/merge", 0, NULL},
	};

	RUN_CASES(&guard, t);
}

/*
 * Reviews, commit statuses, branch protection, branches, labels,
 * settings: judging the work is never the developer's, whatever the
 * client; reading stays allowed.
 */
static void
test_guard_reviews(void)
{
	static const struct gcase t[] = {
	    {"curl -X POST \"$FORGE_API/pulls/5/reviews\" -H 'Content-Type: "
	     "application/json' -d '{\"event\": \"APPROVED\"}'",
		1, "review bot's job"},
	    {"curl -sf -H \"Authorization: token $FORGE_TOKEN\" --data "
	     "'{\"event\":\"APPROVE\",\"body\":\"lgtm\"}' "
	     "http://f/api/v1/repos/o/r/pulls/5/reviews",
		1, "review bot's job"},
	    {"curl -XPOST $FORGE_API/pulls/5/reviews/12", 1, "review bot"},
	    {"curl -sX POST $FORGE_API/pulls/5/reviews", 1, "review bot"},
	    {"curl -sd '{}' $FORGE_API/pulls/5/reviews", 1, "review bot"},
	    {"curl -fsSd @review.json $FORGE_API/pulls/5/reviews", 1,
		"review bot"},
	    {"curl --request=PUT $FORGE_API/pulls/5/reviews", 1, "review bot"},
	    {"curl -X POST $FORGE_API/pulls/5/reviews/12/dismissals -d "
	     "'{\"message\": \"stale\"}'",
		1, "dismissing a review"},
	    {"curl -X DELETE $FORGE_API/pulls/5/reviews/12", 1, "review bot"},
	    {"U=$FORGE_API/pulls/5/reviews; curl -X POST --json '{}' \"$U\"", 1,
		"review bot"},
	    {"wget -qO- --method=POST --body-data='{}' "
	     "$FORGE_API/pulls/5/reviews",
		1, "review bot"},
	    {"http POST $FORGE_API/pulls/5/reviews event=APPROVED", 1,
		"review bot"},
	    {"python3 -c \"import requests; requests.post('$FORGE_API/pulls/5/"
	     "reviews', json={'event': 'APPROVED'})\"",
		1, "review bot"},
	    {"node -e \"fetch(process.env.FORGE_API + '/pulls/5/reviews', "
	     "{method: 'POST', body: '{}'})\"",
		1, "review bot"},
	    {"sh -c 'curl -d {} $FORGE_API/pulls/5/reviews'", 1, "review bot"},
	    {"tea pulls approve 5", 1, "review bot's job"},
	    {"tea pr reject 5", 1, "review bot's job"},
	    {"tea pr review 5", 1, "review bot's job"},
	    {"curl -X POST $FORGE_API/statuses/$SHA -d '{\"state\": "
	     "\"success\"}'",
		1, "commit status is CI's job"},
	    {"curl -X PATCH $FORGE_API/branch_protections/master -d '{}'", 1,
		"branch protection"},
	    {"curl -X DELETE $FORGE_API/branch_protections/master", 1,
		"branch protection"},
	    {"curl -X DELETE $FORGE_API/branches/fix/issue-2", 1,
		"deleting or moving branches"},
	    {"curl -X POST $FORGE_API/issues/5/labels -d '{\"labels\": "
	     "[\"in-progress\"]}'",
		1, "the labels backlog"},
	    {"curl -X POST $FORGE_API/issues/5/labels -d '{\"labels\": [7]}'",
		1, "labels"},
	    {"curl -X POST $FORGE_API/issues/5/labels -d '{\"labels\": "
	     "[\"bug\"]}'",
		0, NULL},
	    {"curl -X DELETE $FORGE_API/issues/5/labels/blocked", 1, "labels"},
	    {"curl -X DELETE $FORGE_API/issues/5/labels/3", 1, "labels"},
	    {"curl -X DELETE $FORGE_API/issues/5/labels", 1, "labels"},
	    {"curl -X PUT $FORGE_API/issues/5/labels -d '{\"labels\":[]}'", 1,
		"labels"},
	    {"curl -X PATCH $FORGE_API/labels/4 -d '{\"name\": \"x\"}'", 1,
		"labels"},
	    {"curl -X PATCH $FORGE_API -d '{\"has_pull_requests\": false}'", 1,
		"settings"},
	    {"curl -X PUT $FORGE_API/collaborators/bot -d '{}'", 1, "settings"},
	    {"curl -X PUT $FORGE_API/contents/README.md -d '{}'", 1,
		"commit and push with git"},
	    {"curl -X DELETE $FORGE_API/issues/comments/9", 1,
		"orchestrator's markers"},
	    /* Reading is allowed. */
	    {"curl -s $FORGE_API/pulls/5/reviews", 0, NULL},
	    {"curl -s -H \"Authorization: token $FORGE_TOKEN\" "
	     "$FORGE_API/pulls/5/reviews | jq '.[].body'",
		0, NULL},
	    {"curl -sD - $FORGE_API/pulls/5/reviews/12/comments", 0, NULL},
	    {"curl -s $FORGE_API/commits/$SHA/statuses", 0, NULL},
	    {"curl -s $FORGE_API/statuses/$SHA", 0, NULL},
	    {"curl -s $FORGE_API/branch_protections", 0, NULL},
	    {"curl $FORGE_API/pulls/5/reviews/12/dismissals", 0, NULL},
	    {"tea pulls list", 0, NULL},
	    {"curl -X POST $FORGE_API/issues/5/comments -d '{\"body\": "
	     "\"Addressed the review.\"}'",
		0, NULL},
	    {"git commit -m 'address the review of #5'", 0, NULL},
	};

	RUN_CASES(&guard, t);
}

/* Programs that speak to the forge: python, node, perl one-liners. */
static void
test_guard_scripts(void)
{
	static const struct gcase t[] = {
	    {"python3 -c \"import requests,os; requests.patch(os.environ["
	     "'FORGE_API'] + '/issues/5', json={'state': 'closed'})\"",
		1, "closing"},
	    {"python3 - <<'EOF'\nimport os, requests\napi = "
	     "os.environ['FORGE_API']\nrequests.patch(f'{api}/issues/5', "
	     "json={'state': 'closed'})\nEOF",
		1, "closing"},
	    {"node <<'EOF'\nfetch(`${process.env.FORGE_API}/pulls/5/merge`, "
	     "{method: 'POST', body: '{\"Do\":\"merge\"}'})\nEOF",
		1, "merging"},
	    {"cat > /tmp/close.py <<'EOF'\nimport requests\n"
	     "requests.patch(API + '/issues/' + n, json={'state': 'closed'})\n"
	     "EOF\npython3 /tmp/close.py",
		1, "closing"},
	    {"perl -e 'use HTTP::Tiny; HTTP::Tiny->new->request(\"PATCH\", "
	     "\"$ENV{FORGE_API}/issues/5\", {content => "
	     "q({\"state\":\"closed\"})})'",
		1, "closing"},
	    {"python3 -c \"import requests,os; requests.post(os.environ["
	     "'FORGE_API'] + '/issues/5/comments', json={'body': 'done'})\"",
		0, NULL},
	    {"python3 -c \"import requests,os; requests.post(os.environ["
	     "'FORGE_API'] + sys.argv[1], json={})\"",
		1, "cannot tell which endpoint"},
	    {"python3 -c \"import requests; print(requests.get("
	     "'http://forge:3000/api/v1/repos/o/r/issues/5').json())\"",
		0, NULL},
	    {"python3 -m pytest -q", 0, NULL},
	    {"node -e \"console.log(require('./package.json').version)\"", 0,
		NULL},
	};

	RUN_CASES(&guard, t);
}

/*
 * Pipelines, lists, substitutions, shells, eval, xargs and the commands
 * that run another one are looked through.
 */
static void
test_guard_lookthrough(void)
{
	static const struct gcase t[] = {
	    {"true && curl -X POST $FORGE_API/pulls/3/merge", 1, "merging"},
	    {"false || curl -X POST $FORGE_API/pulls/3/merge", 1, "merging"},
	    {"ls | curl -X POST $FORGE_API/pulls/3/merge", 1, "merging"},
	    {"echo $(curl -X POST $FORGE_API/pulls/3/merge)", 1, "merging"},
	    {"echo `curl -X POST $FORGE_API/pulls/3/merge`", 1, "merging"},
	    {"bash -c \"curl -X POST $FORGE_API/pulls/3/merge\"", 1, "merging"},
	    {"eval \"curl -X POST \\$FORGE_API/pulls/3/merge\"", 1, "merging"},
	    {"echo 3 | xargs -I{} curl -X POST $FORGE_API/pulls/{}/merge", 1,
		"merging"},
	    {"env X=1 curl -X POST $FORGE_API/pulls/3/merge", 1, "merging"},
	    {"command curl -X POST $FORGE_API/pulls/3/merge", 1, "merging"},
	    {"exec curl -X POST $FORGE_API/pulls/3/merge", 1, "merging"},
	    {"timeout 10 curl -X POST $FORGE_API/pulls/3/merge", 1, "merging"},
	    {"nice -n 5 curl -X POST $FORGE_API/pulls/3/merge", 1, "merging"},
	    {"sudo -u git curl -X POST $FORGE_API/pulls/3/merge", 1, "merging"},
	    {"watch -n 5 curl -X POST $FORGE_API/pulls/3/merge", 1, "merging"},
	    {"flock /tmp/l -c 'curl -X POST $FORGE_API/pulls/3/merge'", 1,
		"merging"},
	    {"bash <<'EOF'\ncurl -X POST $FORGE_API/pulls/3/merge\nEOF", 1,
		"merging"},
	    {"echo 'rm -rf /etc' | sh", 1, "'/etc'"},
	    {"cat > /tmp/x.sh <<'EOF'\nrm -rf /etc\nEOF\nbash /tmp/x.sh", 1,
		"'/etc'"},
	    {"for i in 1 2; do rm -rf /var/$i; done", 1, "below '/var'"},
	    {"if true; then rm -rf /var; fi", 1, "'/var'"},
	    {"X=curl; $X -X POST $FORGE_API/pulls/3/merge", 1, "merging"},
	    {"$CMD -rf /", 1, "cannot tell which command"},
	    {"find /etc -name '*.conf' -delete", 1, "'/etc'"},
	    {"find / -name x -exec rm -rf {} +", 1, "outside"},
	    {"find . -name '*.o' -delete", 0, NULL},
	    {"find . -name node_modules -prune -exec rm -rf {} +", 0, NULL},
	    {"find build -type f | xargs rm -rf", 0, NULL},
	    {"find /var | xargs rm -rf", 1, "'/var'"},
	    {"cat list | xargs rm -rf", 1, "cannot tell what 'rm -r'"},
	    {"echo ${X:-$(rm -rf /etc)}", 1, "'/etc'"},
	    {"cat <(rm -rf /etc)", 1, "'/etc'"},
	    {"cat <<EOF\n$(rm -rf /etc)\nEOF", 1, "'/etc'"},
	    {"cat <<'EOF'\n$(rm -rf /etc)\nEOF", 0, NULL},
	};

	RUN_CASES(&guard, t);
}

static void
test_guard_factory(void)
{
	static const struct gcase t[] = {
	    {"cat README.md", 0, NULL},
	    {"echo PHASE:awaiting_ci > /run/dev-session-p-1.phase", 0, NULL},
	    {"cat /run/p-worktree-1/x", 0, NULL},
	    {"echo see /srv/factory/lib", 0, NULL},
	    {"git commit -m 'read /srv/factory/.env'", 0, NULL},
	    {"ls /srv/factoryx", 0, NULL},
	    {"cat /srv/factory/.env", 1, "factory's own directory"},
	    {"cd /srv/factory", 1, "'/srv/factory'"},
	    {". $FACTORY_ROOT/lib/env.sh", 1, "'/srv/factory/lib/env.sh'"},
	    {"echo x >> /srv/factory/state/.dev-active", 1, "factory"},
	    {"cp a --target-directory=/srv/factory/dev", 1, "factory"},
	    {"grep -r token /srv/factory/", 1, "factory"},
	    {"cd / && cat srv/factory/.env", 1, "factory"},
	    {"python3 -c \"print(open('/srv/factory/.env').read())\"", 1,
		"factory"},
	    {"wc -l < /srv/factory/.env", 1, "factory"},
	};
	struct agent_guard inside = guard;

	RUN_CASES(&guard, t);
	/* A worktree inside the factory is the agent's own. */
	inside.worktree = "/srv/factory/wt";
	inside.cwd = NULL;
	CHECK_INT(agent_guard_check(&inside, "cat /srv/factory/wt/a",
		      (char[64]) {0}, 64),
	    0);
}

/*
 * The run directory: the session's own files only (its phase, its
 * summary, its session directory); never another session's phase or a
 * review's request, output or phase.
 */
static void
test_guard_run_dir(void)
{
	static const struct gcase t[] = {
	    {"echo PHASE:awaiting_ci > /run/dev-session-p-1.phase", 0, NULL},
	    {"printf 'PHASE:done\\n' >/run/dev-session-p-1.phase", 0, NULL},
	    {"cat > /run/dev-impl-summary-p-1.txt <<'EOF'\nDone.\nEOF", 0,
		NULL},
	    {"touch /run/sessions/active/dev-p-1/markers/ready.marker", 0,
		NULL},
	    {"cat /run/dev-session-p-2.phase", 0, NULL},
	    {"cat /run/p-review-output-3.json", 0, NULL},
	    {"echo x > /run/p-worktree-1/notes.txt", 0, NULL},
	    {"echo PHASE:done > /run/dev-session-p-2.phase", 1,
		"not this session's"},
	    {"echo '{\"verdict\": \"APPROVE\"}' > /run/p-review-output-3.json",
		1, "'/run/p-review-output-3.json'"},
	    {"echo PHASE:done > /run/review-session-p-3.phase", 1,
		"a review's files"},
	    {"echo SHA:x > /run/p-review-request-3", 1, "not this session's"},
	    {"cd /run && echo x > p-review-output-3.json", 1, "not this"},
	    {"tee /run/p-review-output-3.json < v.json", 1, "not this"},
	    {"cp v.json /run/p-review-output-3.json", 1, "not this"},
	    {"cp /run/p-review-output-3.json /tmp/copy.json", 0, NULL},
	    {"mv /tmp/v.json /run/p-review-output-3.json", 1, "not this"},
	    {"rm -f /run/dev-session-p-2.phase", 1, "not this"},
	    {"sed -i s/x/y/ /run/dev-session-p-2.phase", 1, "not this"},
	    {"sed s/x/y/ /run/dev-session-p-2.phase", 0, NULL},
	    {"python3 -c \"open('/run/p-review-output-3.json','w')"
	     ".write('{}')\"",
		1, "not this"},
	    {"echo x > /run/sessions/active/dev-p-2/markers/ack.marker", 1,
		"not this"},
	    {"echo x > /run/sessions/active/dev-p-10/x", 1, "not this"},
	};
	struct agent_guard tmp = guard;
	static const char *const tmp_own[] = {"/tmp/dev-session-p-1.phase",
	    NULL};
	static const struct gcase t2[] = {
	    /* The run directory /tmp is scratch space too. */
	    {"echo x > /tmp/scratch.txt", 0, NULL},
	    {"echo PHASE:done > /tmp/dev-session-p-1.phase", 0, NULL},
	    {"echo PHASE:done > /tmp/dev-session-p-2.phase", 1, "not this"},
	    {"echo '{}' > /tmp/p-review-output-3.json", 1, "not this"},
	};
	char why[512];

	RUN_CASES(&guard, t);
	tmp.run_dir = "/tmp";
	tmp.own = tmp_own;
	RUN_CASES(&tmp, t2);
	/* The file tools (Write, Edit) are held to the same. */
	CHECK_INT(agent_guard_check_write(&guard, "/run/p-review-output-3.json",
		      why, sizeof(why)),
	    1);
	CHECK(strstr(why, "not this session's") != NULL);
	CHECK_INT(agent_guard_check_write(&guard, "../../dev-session-p-2.phase",
		      why, sizeof(why)),
	    1);
	CHECK_INT(agent_guard_check_write(&guard, "/run/dev-session-p-1.phase",
		      why, sizeof(why)),
	    0);
	CHECK_INT(agent_guard_check_write(&guard, "main.c", why, sizeof(why)),
	    0);
	CHECK_INT(agent_guard_check_write(&guard, "/etc/x", why, sizeof(why)),
	    0);
	CHECK_INT(agent_guard_check_write(&guard, "/srv/factory/.env", why,
		      sizeof(why)),
	    1);
	CHECK(strstr(why, "factory") != NULL);
}

static void
test_guard_processes(void)
{
	static const struct gcase t[] = {
	    {"kill %1", 0, NULL},
	    {"kill $!", 1, "'kill'"},
	    {"kill -l", 0, NULL},
	    {"tmux ls", 0, NULL},
	    {"docker ps", 0, NULL},
	    {"docker compose up -d", 0, NULL},
	    {"docker run --rm alpine true", 0, NULL},
	    {"kill 1234", 1, "'kill'"},
	    {"kill -9 1234", 1, "'kill'"},
	    {"kill -TERM -- -1", 1, "'kill'"},
	    {"kill -s HUP 1", 1, "'kill'"},
	    {"pkill -f dev-poll", 1, "'pkill'"},
	    {"killall tmux", 1, "'killall'"},
	    {"tmux kill-session -t dev-p-1", 1, "'tmux kill-session'"},
	    {"tmux -L x kill-server", 1, "'tmux kill-server'"},
	    {"tmux send-keys -t dev-p-2 'rm -rf /' Enter", 1, "send-keys"},
	    {"docker stop web", 1, "'docker stop'"},
	    {"docker -H tcp://x rm -f web", 1, "'docker rm'"},
	    {"docker system prune -af", 1, "'docker prune'"},
	    {"docker compose down", 1, "'docker down'"},
	    {"docker-compose kill", 1, "'docker-compose kill'"},
	    {"sudo -n timeout 5 nice -n 5 kill 1", 1, "'kill'"},
	};

	RUN_CASES(&guard, t);
}

static void
test_guard_shell(void)
{
	static const struct gcase t[] = {
	    /* Here-documents are data. */
	    {"cat > notes.md <<'EOF'\nrm -rf /\ngit push -f origin master\n"
	     "EOF\nls",
		0, NULL},
	    {"cat <<-X >a\n\trm -rf /etc\n\tX\nrm -rf /etc", 1, "'/etc'"},
	    /* Comments, quotes and escapes. */
	    {"ls # rm -rf /", 0, NULL},
	    {"echo \"rm -rf /\" 'kill 1'", 0, NULL},
	    {"r\\m -rf /etc", 1, "'/etc'"},
	    {"'rm' -rf \"/etc\"", 1, "'/etc'"},
	    {"$'rm' -rf $'/e\\x74c'", 1, "'/etc'"},
	    {"FOO=1 rm -rf /etc", 1, "'/etc'"},
	    {"(cd /tmp && rm -rf /var)", 1, "'/var'"},
	    {"ls|rm -rf /var", 1, "'/var'"},
	    {"true&&rm -rf /var", 1, "'/var'"},
	    {"diff <(rm -rf /var) x", 1, "'/var'"},
	    {"echo 2>&1 >/dev/null x", 0, NULL},
	    {"sh -c 'sh -c \"sh -c \\\"sh -c x\\\"\"'", 0, NULL},
	    {"", 0, NULL},
	    {"\"unterminated", 0, NULL},
	    {"echo $(( 1 + (2) )) && kill 3", 1, "'kill'"},
	    {"a=1; b=2; echo $a$b", 0, NULL},
	    {"f() { rm -rf /etc; }; f", 1, "'/etc'"},
	};

	RUN_CASES(&guard, t);
}

/*
 * Commands agents run every day, all allowed: git, builds and tests,
 * forge reads, clean-ups inside the worktree, moving around it.
 */
static void
test_guard_harmless(void)
{
	static const struct gcase t[] = {
	    {"git status", 0, NULL},
	    {"git add -A", 0, NULL},
	    {"git add src/parser.c tests/test_parser.c", 0, NULL},
	    {"git commit -m 'fix: parse empty input (#12)'", 0, NULL},
	    {"git commit -am \"wip\" && git push origin fix/issue-12", 0, NULL},
	    {"git push -u origin fix/issue-12", 0, NULL},
	    {"git push --force-with-lease origin HEAD:fix/issue-12", 0, NULL},
	    {"git fetch origin && git rebase origin/master", 0, NULL},
	    {"git log --oneline -5", 0, NULL},
	    {"git diff --stat origin/master...HEAD", 0, NULL},
	    {"git stash && git stash pop", 0, NULL},
	    {"git checkout -b fix/issue-12", 0, NULL},
	    {"make", 0, NULL},
	    {"make -j2 test", 0, NULL},
	    {"make clean && make CC=clang", 0, NULL},
	    {"npm install && npm test", 0, NULL},
	    {"npm run lint -- --fix", 0, NULL},
	    {"npx jest src/parser.test.js", 0, NULL},
	    {"cargo build --release 2>&1 | tail -20", 0, NULL},
	    {"go test ./...", 0, NULL},
	    {"pytest -q tests/test_parser.py", 0, NULL},
	    {"python3 -m venv .venv && . .venv/bin/activate", 0, NULL},
	    {"curl -s \"$FORGE_API/issues/12\" | jq -r .body", 0, NULL},
	    {"curl -sf -H \"Authorization: token $FORGE_TOKEN\" "
	     "\"$FORGE_API/issues/12/comments\"",
		0, NULL},
	    {"curl -s $FORGE_API/pulls?state=open | jq length", 0, NULL},
	    {"curl -s \"$FORGE_API/commits/$(git rev-parse HEAD)/status\"", 0,
		NULL},
	    {"curl -sX POST -H 'Content-Type: application/json' "
	     "\"$FORGE_API/issues/12/comments\" -d '{\"body\": \"Blocked on "
	     "#11\"}'",
		0, NULL},
	    {"rm -rf build dist node_modules", 0, NULL},
	    {"rm -rf ./target && cargo build", 0, NULL},
	    {"rm -f src/*.o", 0, NULL},
	    {"rm -rf /tmp/test-output-12", 0, NULL},
	    {"cd src && make", 0, NULL},
	    {"cd tests && ./run.sh; cd ..", 0, NULL},
	    {"cd /run/p-worktree-1 && git status", 0, NULL},
	    {"mkdir -p build && cd build && cmake .. && make", 0, NULL},
	    {"ls -la", 0, NULL},
	    {"cat src/parser.c | head -50", 0, NULL},
	    {"grep -rn 'TODO' src/ | wc -l", 0, NULL},
	    {"find . -name '*.py' | xargs grep -l import", 0, NULL},
	    {"sed -i 's/foo/bar/g' src/parser.c", 0, NULL},
	    {"echo 'PHASE:awaiting_ci' > /run/dev-session-p-1.phase", 0, NULL},
	    {"cat > /run/dev-impl-summary-p-1.txt <<'EOF'\nFixed the parser."
	     "\nEOF",
		0, NULL},
	    {"for f in src/*.c; do clang-format -i \"$f\"; done", 0, NULL},
	    {"TMP=$(mktemp -d); cp -r src \"$TMP\"; rm -rf \"$TMP\"", 0, NULL},
	    {"export CFLAGS=-O0; make", 0, NULL},
	    {"jq . package.json > /tmp/pkg.json", 0, NULL},
	    {"tee -a notes.md <<< 'done'", 0, NULL},
	    {"python3 -c 'import sys; print(sys.version)'", 0, NULL},
	    {"node --version", 0, NULL},
	    {"docker build -t app .", 0, NULL},
	};

	RUN_CASES(&guard, t);
	CHECK(sizeof(t) / sizeof(t[0]) >= 40);
}

/* Without a factory root or a cwd, the worktree is where commands run. */
static void
test_guard_defaults(void)
{
	struct agent_guard g = {.worktree = "/w/", .run_dir = "/tmp"};
	static const struct gcase t[] = {
	    {"rm -rf x /w/y", 0, NULL},
	    {"rm -rf /tmp/dev-session-p-1.phase", 0, NULL},
	    {"echo x > /tmp/dev-session-p-2.phase", 0, NULL},
	    {"git push -f origin master", 1, "'master'"},
	    {"cat /etc/passwd", 0, NULL},
	    {"curl -X PATCH $FORGE_API/issues/3 -d state=closed", 1, "closing"},
	};

	RUN_CASES(&g, t);
}

/* A request body in a file on disk is read; a missing one is unknown. */
static void
test_guard_body_file(void)
{
	char closed[] = "/tmp/guard-body-XXXXXX",
	     title[] = "/tmp/guard-body-XXXXXX";
	char cmd[512], why[512];
	int fd;

	if ((fd = mkstemp(closed)) == -1 ||
	    write(fd, "{\"state\": \"closed\"}", 19) != 19 || close(fd) != 0 ||
	    (fd = mkstemp(title)) == -1 ||
	    write(fd, "{\"title\": \"y\"}", 14) != 14 || close(fd) != 0) {
		CHECK(0);
		return;
	}
	snprintf(cmd, sizeof(cmd),
	    "curl -X PATCH -d @%s \"$FORGE_API/issues/5\"", closed);
	CHECK_INT(agent_guard_check(&guard, cmd, why, sizeof(why)), 1);
	CHECK(strstr(why, "closing") != NULL);
	snprintf(cmd, sizeof(cmd),
	    "curl -X PATCH -d @%s \"$FORGE_API/issues/5\"", title);
	CHECK_INT(agent_guard_check(&guard, cmd, why, sizeof(why)), 0);
	snprintf(cmd, sizeof(cmd), "http PATCH $FORGE_API/issues/5 < %s",
	    closed);
	CHECK_INT(agent_guard_check(&guard, cmd, why, sizeof(why)), 1);
	unlink(closed);
	unlink(title);
}

/*
 * agent_guard_hook() on the text, with the guard the hook builds (no
 * cwd: the input's); its verdict.
 */
static int
hook(const char *text, int whole, char *why, size_t whysz)
{
	struct agent_guard g = guard;

	g.cwd = NULL;
	return agent_guard_hook(&g, text, strlen(text), whole, why, whysz);
}

/*
 * A PreToolUse hook's input the guard cannot read is refused: over its
 * cap, cut short, not JSON, naming no tool or one it does not know,
 * without the command or path; what it reads is judged as before.
 */
static void
test_guard_hook(void)
{
	char why[512], *big;
	size_t n = AGENT_GUARD_INPUT_MAX + 64;

	CHECK_INT(hook("{\"tool_name\": \"Bash\", \"tool_input\": "
		       "{\"command\": \"git status\"}}",
		      1, why, sizeof(why)),
	    0);
	CHECK_STR(why, "");
	CHECK_INT(hook("{\"tool_name\": \"Bash\", \"tool_input\": "
		       "{\"command\": \"git checkout master\"}}",
		      1, why, sizeof(why)),
	    1);
	CHECK(strstr(why, "primary branch 'master'") != NULL);
	/* The input's cwd places a relative path. */
	CHECK_INT(hook("{\"tool_name\": \"Bash\", \"cwd\": \"/run\", "
		       "\"tool_input\": {\"command\": \"echo x > "
		       "dev-session-p-2.phase\"}}",
		      1, why, sizeof(why)),
	    1);
	CHECK_INT(hook("{\"tool_name\": \"Write\", \"tool_input\": "
		       "{\"file_path\": \"/srv/factory/.env\"}}",
		      1, why, sizeof(why)),
	    1);
	CHECK(strstr(why, "factory's own directory") != NULL);
	CHECK_INT(hook("{\"tool_name\": \"NotebookEdit\", \"tool_input\": "
		       "{\"notebook_path\": \"/run/p-worktree-1/n.ipynb\"}}",
		      1, why, sizeof(why)),
	    0);

	/* Cut short by the reader, or longer than the cap. */
	CHECK_INT(hook("{\"tool_name\": \"Bash\", \"tool_input\": "
		       "{\"command\": \"ls\"}}",
		      0, why, sizeof(why)),
	    1);
	CHECK(strstr(why, "longer than the guard reads") != NULL);
	big = malloc(n + 1);
	CHECK(big != NULL);
	if (big != NULL) {
		memset(big, ' ', n);
		memcpy(big,
		    "{\"tool_name\": \"Bash\", \"tool_input\": "
		    "{\"command\": \"ls\"}}",
		    52);
		big[n] = '\0';
		CHECK_INT(agent_guard_hook(&guard, big, n, 1, why, sizeof(why)),
		    1);
		CHECK(strstr(why, "longer than the guard reads") != NULL);
		free(big);
	}
	/* Not JSON, or not an object. */
	CHECK_INT(hook("not json", 1, why, sizeof(why)), 1);
	CHECK(strstr(why, "cannot read the tool's input") != NULL);
	CHECK_INT(hook("{\"tool_name\": \"Bash\", \"tool_input\": "
		       "{\"command\": \"ls\"",
		      1, why, sizeof(why)),
	    1);
	CHECK(strstr(why, "cannot read the tool's input") != NULL);
	CHECK_INT(hook("[\"Bash\"]", 1, why, sizeof(why)), 1);
	CHECK(strstr(why, "not a JSON object") != NULL);
	CHECK_INT(hook("", 1, why, sizeof(why)), 1);
	/* No tool, a tool it does not know, a tool named by another type. */
	CHECK_INT(hook("{\"tool_input\": {\"command\": \"ls\"}}", 1, why,
		      sizeof(why)),
	    1);
	CHECK(strstr(why, "names no tool") != NULL);
	CHECK_INT(hook("{\"tool_name\": \"WebFetch\", \"tool_input\": "
		       "{\"url\": \"http://forge:3000/\"}}",
		      1, why, sizeof(why)),
	    1);
	CHECK(strstr(why, "does not know the tool 'WebFetch'") != NULL);
	CHECK_INT(hook("{\"tool_name\": \"bash\", \"tool_input\": "
		       "{\"command\": \"ls\"}}",
		      1, why, sizeof(why)),
	    1);
	CHECK_INT(hook("{\"tool_name\": [\"Bash\"], \"tool_input\": "
		       "{\"command\": \"ls\"}}",
		      1, why, sizeof(why)),
	    1);
	/* No command, a command of another type, no path. */
	CHECK_INT(hook("{\"tool_name\": \"Bash\"}", 1, why, sizeof(why)), 1);
	CHECK(strstr(why, "has no command") != NULL);
	CHECK_INT(hook("{\"tool_name\": \"Bash\", \"tool_input\": "
		       "{\"command\": [\"rm\", \"-rf\", \"/\"]}}",
		      1, why, sizeof(why)),
	    1);
	CHECK(strstr(why, "has no command") != NULL);
	CHECK_INT(hook("{\"tool_name\": \"Edit\", \"tool_input\": {}}", 1, why,
		      sizeof(why)),
	    1);
	CHECK(strstr(why, "Edit tool's input has no file path") != NULL);
}

int
main(void)
{
	RUN(test_guard_push);
	RUN(test_guard_checkout);
	RUN(test_guard_rm);
	RUN(test_guard_cd);
	RUN(test_guard_api);
	RUN(test_guard_api_forms);
	RUN(test_guard_reviews);
	RUN(test_guard_scripts);
	RUN(test_guard_lookthrough);
	RUN(test_guard_factory);
	RUN(test_guard_run_dir);
	RUN(test_guard_processes);
	RUN(test_guard_shell);
	RUN(test_guard_harmless);
	RUN(test_guard_defaults);
	RUN(test_guard_body_file);
	RUN(test_guard_hook);
	return check_main();
}
