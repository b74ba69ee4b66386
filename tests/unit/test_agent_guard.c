/*
 * Tests for the guard of an agent's shell commands
 * (common/agent/agent_guard.c): a table of commands an agent in
 * /run/p-worktree-1 may and may not run, with the factory in /srv/factory and
 * the run directory /run.
 */
#include <stdio.h>
#include <string.h>

#include "agent_guard.h"
#include "check.h"

static const struct agent_guard guard = {
    .primary_branch = "master",
    .worktree = "/run/p-worktree-1",
    .factory_root = "/srv/factory",
    .run_dir = "/run",
    .home = "/home/agent",
    .cwd = "/run/p-worktree-1/src",
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
	char why[512];
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
	    {"rm -rf \"$OUT\"", 0, NULL},
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
	    {"tea pr merge 3", 1, "merging is the orchestrator's job"},
	    {"tea issues close 3", 1, "closing issues"},
	    {"tea issues list", 0, NULL},
	};

	RUN_CASES(&guard, t);
}

/*
 * Reviews, commit statuses and branch protection: judging the work is
 * never the developer's, whatever the client; reading stays allowed.
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
	    {"curl $FORGE_API/pulls/5/reviews/12/dismissals", 1, "review bot"},
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
	    /* Reading is allowed. */
	    {"curl -s $FORGE_API/pulls/5/reviews", 0, NULL},
	    {"curl -s -H \"Authorization: token $FORGE_TOKEN\" "
	     "$FORGE_API/pulls/5/reviews | jq '.[].body'",
		0, NULL},
	    {"curl -sD - $FORGE_API/pulls/5/reviews/12/comments", 0, NULL},
	    {"curl -s $FORGE_API/commits/$SHA/statuses", 0, NULL},
	    {"curl -s $FORGE_API/statuses/$SHA", 0, NULL},
	    {"curl -s $FORGE_API/branch_protections", 0, NULL},
	    {"tea pulls list", 0, NULL},
	    {"curl -X POST $FORGE_API/issues/5/comments -d '{\"body\": "
	     "\"Addressed the review.\"}'",
		0, NULL},
	    {"git commit -m 'address the review of #5'", 0, NULL},
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

static void
test_guard_processes(void)
{
	static const struct gcase t[] = {
	    {"kill %1", 0, NULL},
	    {"kill $!", 0, NULL},
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
	    {"FOO=1 rm -rf /etc", 1, "'/etc'"},
	    {"(cd /tmp && rm -rf /var)", 1, "'/var'"},
	    {"ls|rm -rf /var", 1, "'/var'"},
	    {"true&&rm -rf /var", 1, "'/var'"},
	    {"if true; then rm -rf /var; fi", 1, "'/var'"},
	    {"diff <(rm -rf /var) x", 1, "'/var'"},
	    {"echo 2>&1 >/dev/null x", 0, NULL},
	    {"sh -c 'sh -c \"sh -c \\\"sh -c x\\\"\"'", 0, NULL},
	    {"", 0, NULL},
	    {"\"unterminated", 0, NULL},
	    {"echo $(( 1 + (2) )) && kill 3", 1, "'kill'"},
	};

	RUN_CASES(&guard, t);
}

/* Without a factory root or a cwd, the worktree is where commands run. */
static void
test_guard_defaults(void)
{
	struct agent_guard g = {.worktree = "/w/", .run_dir = "/tmp"};
	static const struct gcase t[] = {
	    {"rm -rf x /w/y", 0, NULL},
	    {"rm -rf /tmp/dev-session-p-1.phase", 0, NULL},
	    {"git push -f origin master", 1, "'master'"},
	    {"cat /etc/passwd", 0, NULL},
	};

	RUN_CASES(&g, t);
}

int
main(void)
{
	RUN(test_guard_push);
	RUN(test_guard_checkout);
	RUN(test_guard_rm);
	RUN(test_guard_api);
	RUN(test_guard_reviews);
	RUN(test_guard_factory);
	RUN(test_guard_processes);
	RUN(test_guard_shell);
	RUN(test_guard_defaults);
	return check_main();
}
