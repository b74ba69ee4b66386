#!/usr/bin/env python3
"""forge-contract: every request the tools send, checked against what the
real servers read.

The table below names each endpoint disinto-c calls on Gitea/Forgejo (API
v1) and Woodpecker, with the query parameters the server reads there, the
body keys it accepts, and the values a parameter or key may take where
another value is silently taken as something else.  It was written from
the servers' source (the file each row names; Gitea 1.2x, Forgejo,
Woodpecker v2.8.3 and 3.x).  Where Gitea and Forgejo differ, a row holds
what both read: a parameter only one of them reads is one the other
ignores (Forgejo reads "sort" on a repository's issue list, Gitea does not).

Usage:
    forge-contract.py [--all] LOG...

Each LOG is a simulator request log (forge-sim.py --log: one JSON object
per line).  Only the tools' own requests are checked (User-Agent
"disinto-c"), unless --all is given.  Every request that asks for an
endpoint not in the table, or sends a query parameter the server does
not read, a body key it does not accept or a value it does not take, is
printed as one line "METHOD PATH: why"; the exit status is 1 when there
was any, 0 otherwise, 2 on bad usage.
"""

import json
import re
import sys
import urllib.parse

REPO = r"/api/v1/repos/[^/]+/[^/]+"
WP_REPO = r"/api/repos/\d+"

# Query parameters of Gitea's list options (routers/api/v1/utils/page.go
# GetListOptions): "page" and "limit".
LIST = ("page", "limit")

# One row per endpoint: method, path (a regular expression over the path
# without its query), the query parameters read, the body keys accepted
# (None: no body is read), the values some of them may take, and where
# that was read.
ENDPOINTS = [
    # -- Gitea / Forgejo --------------------------------------------------
    ("GET", r"/api/v1/user", (), None, {},
     "routers/api/v1/user/user.go GetAuthenticatedUser"),
    ("GET", r"/api/v1/user/teams", LIST, None, {},
     "routers/api/v1/org/team.go ListUserTeams (the doer's teams)"),
    ("GET", REPO, (), None, {},
     "routers/api/v1/repo/repo.go Get (permissions of the doer: "
     "services/convert/repository.go innerToRepo)"),
    ("GET", REPO + r"/branch_protections", (), None, {},
     "routers/api/v1/repo/branch.go ListBranchProtections (reqToken, "
     "reqAdmin in routers/api/v1/api.go; no page or limit read)"),
    ("GET", REPO + r"/issues",
     ("state", "labels", "q", "type", "milestones", "since", "before",
      "created_by", "assigned_by", "mentioned_by") + LIST, None,
     {"state": ("open", "closed", "all"), "type": ("issues", "pulls")},
     "routers/api/v1/repo/issue.go ListIssues (Gitea reads no \"sort\": "
     "SortBy is always SortByCreatedDesc; Forgejo reads one)"),
    ("GET", REPO + r"/issues/\d+", (), None, {},
     "routers/api/v1/repo/issue.go GetIssue"),
    ("PATCH", REPO + r"/issues/\d+", (),
     ("title", "body", "ref", "assignee", "assignees", "milestone",
      "state", "due_date", "unset_due_date"),
     {"state": ("open", "closed")},
     "routers/api/v1/repo/issue.go EditIssue, modules/structs/issue.go "
     "EditIssueOption"),
    ("GET", REPO + r"/issues/\d+/comments", ("since", "before"), None, {},
     "routers/api/v1/repo/issue_comment.go ListIssueComments (no page, "
     "no limit: every comment in one answer)"),
    ("POST", REPO + r"/issues/\d+/comments", (), ("body",), {},
     "routers/api/v1/repo/issue_comment.go CreateIssueComment, "
     "CreateIssueCommentOption"),
    ("PATCH", REPO + r"/issues/comments/\d+", (), ("body",), {},
     "routers/api/v1/repo/issue_comment.go EditIssueComment, "
     "EditIssueCommentOption"),
    ("GET", REPO + r"/labels", LIST, None, {},
     "routers/api/v1/repo/label.go ListLabels"),
    ("POST", REPO + r"/labels", (),
     ("name", "color", "description", "exclusive", "is_archived"), {},
     "routers/api/v1/repo/label.go CreateLabel, CreateLabelOption"),
    ("POST", REPO + r"/issues/\d+/labels", (), ("labels",), {},
     "routers/api/v1/repo/issue_label.go AddIssueLabels, IssueLabelsOption"),
    ("DELETE", REPO + r"/issues/\d+/labels/\d+", (), None, {},
     "routers/api/v1/repo/issue_label.go DeleteIssueLabel (an unknown "
     "label id is 422)"),
    ("GET", REPO + r"/pulls",
     ("state", "sort", "milestone", "labels", "poster") + LIST, None,
     {"state": ("open", "closed", "all"),
      "sort": ("oldest", "recentupdate", "leastupdate", "mostcomment",
               "leastcomment", "priority")},
     "routers/api/v1/repo/pull.go ListPullRequests"),
    ("GET", REPO + r"/pulls/\d+", (), None, {},
     "routers/api/v1/repo/pull.go GetPullRequest"),
    ("POST", REPO + r"/pulls", (),
     ("title", "body", "head", "base", "assignee", "assignees",
      "milestone", "labels", "due_date", "reviewers", "team_reviewers"), {},
     "routers/api/v1/repo/pull.go CreatePullRequest, "
     "CreatePullRequestOption"),
    ("GET", REPO + r"/pulls/\d+/files", ("skip-to", "whitespace") + LIST,
     None, {}, "routers/api/v1/repo/pull.go GetPullRequestFiles"),
    ("GET", REPO + r"/pulls/\d+\.diff", ("binary",), None, {},
     "routers/api/v1/repo/pull.go DownloadPullDiffOrPatch"),
    ("POST", REPO + r"/pulls/\d+/merge", (),
     ("Do", "MergeTitleField", "MergeMessageField", "MergeCommitID",
      "head_commit_id", "force_merge", "merge_when_checks_succeed",
      "delete_branch_after_merge"),
     {"Do": ("merge", "rebase", "rebase-merge", "squash",
             "fast-forward-only", "manually-merged")},
     "routers/api/v1/repo/pull.go MergePullRequest, services/forms/"
     "repo_form.go MergePullRequestForm (Do is required, one of these)"),
    ("GET", REPO + r"/pulls/\d+/reviews", LIST, None, {},
     "routers/api/v1/repo/pull_review.go ListPullReviews"),
    ("POST", REPO + r"/pulls/\d+/reviews", (),
     ("event", "body", "commit_id", "comments"),
     {"event": ("APPROVED", "REQUEST_CHANGES", "COMMENT")},
     "routers/api/v1/repo/pull_review.go CreatePullReview, "
     "preparePullReviewType (another event makes a PENDING review)"),
    ("POST", REPO + r"/pulls/\d+/reviews/\d+/dismissals", (),
     ("message", "priors"), {},
     "routers/api/v1/repo/pull_review.go DismissPullReview, "
     "DismissPullReviewOptions"),
    ("GET", REPO + r"/commits/[^/]+/status", LIST, None, {},
     "routers/api/v1/repo/status.go GetCombinedCommitStatusByRef"),
    ("GET", REPO + r"/commits/[^/]+/statuses", ("sort", "state") + LIST,
     None, {},
     "routers/api/v1/repo/status.go GetCommitStatusesByRef "
     "(getCommitStatuses: utils.GetListOptions, sort and state)"),
    ("GET", r"/api/v1/version", (), None, {},
     "routers/api/v1/misc/version.go Version"),
    ("DELETE", REPO + r"/branches/.+", (), None, {},
     "routers/api/v1/repo/branch.go DeleteBranch"),
    # -- Woodpecker (what 2.x and 3.x both read) -------------------------
    ("GET", r"/api/user", (), None, {},
     "server/api/user.go GetSelf (server/router/api.go: session.MustUser)"),
    ("GET", WP_REPO, (), None, {},
     "server/api/repo.go GetRepo (session.SetRepo, session.MustPull)"),
    ("GET", WP_REPO + r"/pipelines", ("page", "perPage", "before", "after"),
     None, {},
     "server/api/pipeline.go GetPipelines, server/router/middleware/"
     "session/pagination.go (\"perPage\" only; 3.x also reads branch, "
     "ref, event, status)"),
    ("GET", WP_REPO + r"/pipelines/\d+", (), None, {},
     "server/api/pipeline.go GetPipeline"),
    ("POST", WP_REPO + r"/pipelines/\d+", ("event", "deploy_to"), None, {},
     "server/api/pipeline.go PostPipeline (a restart; other query "
     "parameters become pipeline variables)"),
    ("GET", WP_REPO + r"/logs/\d+/\d+", (), None, {},
     "server/api/pipeline.go GetStepLogs"),
]

_COMPILED = [(m, re.compile("^" + p + "$"), q, b, v, src)
             for m, p, q, b, v, src in ENDPOINTS]


def endpoint(method, path):
    """The row for method and path (without query), or None."""
    for row in _COMPILED:
        if row[0] == method and row[1].match(path):
            return row
    return None


def check_request(method, target, body):
    """Why the request would be ignored or refused in part: a list of
    reasons, empty when the server reads all of it."""
    url = urllib.parse.urlsplit(target)
    row = endpoint(method, url.path)
    if row is None:
        return ["no such endpoint in the contract table"]
    _, _, query, keys, values, src = row
    why = []
    for key, val in urllib.parse.parse_qsl(url.query,
                                           keep_blank_values=True):
        if key not in query:
            why.append("query parameter '%s' is not read (%s)" % (key, src))
        elif key in values and val not in values[key]:
            why.append("'%s=%s' is not a value it takes (%s)" % (
                key, val, src))
    if body is not None and body != "":
        if keys is None:
            why.append("a body is sent, none is read (%s)" % src)
        elif not isinstance(body, dict):
            why.append("the body is not a JSON object (%s)" % src)
        else:
            for key, val in body.items():
                if key not in keys:
                    why.append("body key '%s' is not accepted (%s)" % (
                        key, src))
                elif key in values and val not in values[key]:
                    why.append("body '%s: %s' is not a value it takes "
                               "(%s)" % (key, json.dumps(val), src))
    return why


def check_log(path, every=False, out=sys.stdout):
    """Check every request of one simulator log; returns how many broke
    the contract."""
    bad = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if not every and not str(e.get("agent", "")).startswith(
                    "disinto-c"):
                continue
            for why in check_request(e.get("method", ""), e.get("path", ""),
                                     e.get("body")):
                out.write("%s %s: %s\n" % (e.get("method"), e.get("path"),
                                           why))
                bad += 1
    return bad


def main(argv):
    args = argv[1:]
    every = False
    if args and args[0] == "--all":
        every = True
        args = args[1:]
    if not args:
        sys.stderr.write("usage: forge-contract.py [--all] LOG...\n")
        return 2
    bad = 0
    for path in args:
        try:
            bad += check_log(path, every)
        except OSError as e:
            sys.stderr.write("forge-contract.py: %s\n" % e)
            return 2
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
