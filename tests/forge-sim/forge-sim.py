#!/usr/bin/env python3
"""forge-sim: a stateful simulator of the Gitea/Forgejo API v1 subset and the
Woodpecker CI API that disinto-c uses, for integration tests.

Usage:
    forge-sim.py --scenario FILE --port-file PATH [--log PATH]
                 [--git-dir BARE_REPO] [--dialect gitea|gitea-1.23|forgejo]
                 [--woodpecker 2|3] [--page-cap N]

It listens on 127.0.0.1 on a port chosen by the OS, writes that port to
PATH (temp file + rename) once listening, and serves until SIGTERM/SIGINT.
Standard library only.  See README.md next to this file for the scenario
format, the endpoints and the admin interface.

It answers as the servers' own source says (each behaviour that matters to
a decision names the file it follows), by dialect: --dialect gitea (the
default: Gitea 1.22), gitea-1.23 (Gitea 1.22 but for its combined commit
status and its /version) or forgejo, --woodpecker 2 (2.8.x) or 3 (the default:
3.14 and later), --page-cap N ([api] MAX_RESPONSE_ITEMS, default 50).

Semantics follow real Gitea where the two differ from a naive reading:
 - list endpoints take `page` (1-based) and `limit` (default 30, capped at
   the page cap) and set X-Total-Count (and Link where Gitea does); past
   the end they return [];
 - a repository's issue list is newest first and Gitea reads no `sort`
   there (Forgejo does);
 - a PR whose head branch is gone has head.ref "refs/pull/N/head" (the
   branch's name stays in head.label);
 - GET /issues/{n}/comments is NOT paginated (Gitea ignores page/limit
   there; it takes `since`/`before`);
 - PATCH /issues/{n} answers 201; POST /pulls/{n}/reviews answers 200;
 - DELETE /issues/{n}/labels/{id} with an unknown label id answers 422;
 - creating a label whose name already exists creates a duplicate (201);
 - merge: 405 when already merged, not mergeable (a conflict, or being
   checked: a merge puts every other open PR on its base into checking),
   work in progress or short of a protected branch's approvals, 404 when
   closed unmerged, 409 when head_commit_id is not the head, for a
   conflict found by the merge or a push the hooks refuse;
 - combined status of a commit without statuses has state ""; it lists
   one page of the contexts (X-Total-Count counts them all) and combines
   that page alone, by the dialect's rule (Sim.combine_states).
"""

import argparse
import base64
import copy
import fnmatch
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import traceback
import urllib.parse
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# Gitea modules/setting/api.go: DefaultPagingNum 30, MaxResponseItems 50
# (the [api] MAX_RESPONSE_ITEMS setting; --page-cap sets it here).
DEFAULT_LIMIT = 30
MAX_LIMIT = 50
# Woodpecker server/router/middleware/session/pagination.go: perPage
# (only that name) defaults to and is capped at maxPageSize, 50.
WP_DEFAULT_PER_PAGE = 50
BASE_TIME = 1700000000      # default created_at of item n: BASE_TIME + n min
STATUS_RANK = {"error": 0, "failure": 1, "warning": 2, "pending": 3,
               "success": 4, "skipped": 5}
MERGE_STYLES = ("merge", "rebase", "rebase-merge", "squash",
                "fast-forward-only", "manually-merged")
NOT_FOUND_MSG = "The target couldn't be found."


def now_iso():
    """Current time as Gitea prints it (RFC 3339, UTC, seconds)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_of(epoch):
    return datetime.fromtimestamp(epoch, timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


def parse_iso(text):
    """RFC 3339 text to epoch seconds; 0 when unparsable."""
    if not text:
        return 0
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0


def fake_sha(seed):
    return hashlib.sha1(seed.encode()).hexdigest()


def merge_patch(target, patch):
    """RFC 7396 JSON merge patch; returns the patched value."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if not isinstance(target, dict):
        target = {}
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = merge_patch(target.get(key), value)
    return target


class HTTPError(Exception):
    """Raised by handlers to answer with a Gitea-style error."""

    def __init__(self, status, message=""):
        super().__init__(message)
        self.status = status
        self.message = message


# ---------------------------------------------------------------------------
# State: the scenario, normalised, plus counters.  Guarded by Sim.lock.
# ---------------------------------------------------------------------------

class Sim:
    def __init__(self, scenario, git_dir=None, log_path=None,
                 dialect="gitea", woodpecker="3", page_cap=MAX_LIMIT):
        self.dialect = dialect  # "gitea", "gitea-1.23" or "forgejo"
        self.wp_version = woodpecker    # "2" or "3"
        self.page_cap = page_cap        # [api] MAX_RESPONSE_ITEMS
        self.lock = threading.RLock()
        self.inflight = 0      # API requests being handled now
        self.git_dir = git_dir
        self.git_heads = None  # the bare repository's branches, cached
        self.log_path = log_path
        self.log = []
        self.seq = 0
        self.faults = []
        self.scenario = copy.deepcopy(scenario)
        self.state = self.normalise(scenario)

    # -- loading ------------------------------------------------------------

    def normalise(self, sc):
        st = copy.deepcopy(sc)
        st.setdefault("repo", "test/repo")
        st.setdefault("default_branch", "master")
        st.setdefault("users", [])
        st.setdefault("labels", [])
        st.setdefault("issues", [])
        st.setdefault("pulls", [])
        st.setdefault("statuses", {})
        st.setdefault("branches", {})
        st.setdefault("branch_protections", [])
        for i, u in enumerate(st["users"]):
            u.setdefault("id", i + 1)
            u.setdefault("admin", False)
            # The user's access to the repository: "admin", "write" or
            # "read" (a site admin is an admin of every repository).
            u.setdefault("permission", "admin" if u["admin"] else "write")
        # Organisation labels (routers/api/v1/org/label.go): not in the
        # repository's /labels, but an issue may carry them.
        for i, lab in enumerate(st.setdefault("org_labels", [])):
            lab.setdefault("id", 1000 + i)
            lab.setdefault("color", "ededed")
            lab.setdefault("description", "")
        for i, lab in enumerate(st["labels"]):
            lab.setdefault("id", i + 1)
            lab.setdefault("color", "ededed")
            lab["color"] = lab["color"].lstrip("#")
            lab.setdefault("description", "")
        for it in st["issues"]:
            self.norm_item(it)
        for pr in st["pulls"]:
            self.norm_item(pr)
            self.norm_pull(pr, st)
        self.number_comments(st["issues"] + st["pulls"])
        top = max([0] + [r.get("id", 0) for pr in st["pulls"]
                         for r in pr["reviews"]])
        for pr in st["pulls"]:
            for r in pr["reviews"]:
                if "id" not in r:
                    top += 1
                    r["id"] = top
        st["branches"].setdefault(st["default_branch"],
                                  fake_sha("branch-" + st["default_branch"]))
        wp = st.setdefault("woodpecker", {})
        wp.setdefault("repo_id", 1)
        wp.setdefault("user", "ci-bot")
        wp.setdefault("pipelines", [])
        wp.setdefault("logs", {})
        for p in wp["pipelines"]:
            self.norm_pipeline(p)
        return st

    def norm_item(self, it):
        """Defaults shared by issues and pulls (the issue side of a PR)."""
        n = it["number"]
        it.setdefault("title", "item %d" % n)
        it.setdefault("body", "")
        it.setdefault("state", "open")
        it.setdefault("labels", [])
        it.setdefault("user", "owner")
        it.setdefault("created_at", iso_of(BASE_TIME + 60 * n))
        it.setdefault("updated_at", it["created_at"])
        it.setdefault("closed_at",
                      it["updated_at"] if it["state"] == "closed" else None)
        for c in it.setdefault("comments", []):
            c.setdefault("user", "owner")
            c.setdefault("body", "")
            c.setdefault("created_at", it["created_at"])
            c.setdefault("updated_at", c["created_at"])

    @staticmethod
    def number_comments(items):
        """Gives scenario comments without an "id" the next free ids."""
        comments = [c for it in items for c in it["comments"]]
        top = max([0] + [c["id"] for c in comments if "id" in c])
        for c in comments:
            if "id" not in c:
                top += 1
                c["id"] = top

    def norm_pull(self, pr, st):
        n = pr["number"]
        head = pr.setdefault("head", {})
        head.setdefault("ref", "fix/issue-%d" % n)
        head.setdefault("sha", fake_sha("head-%d" % n))
        pr.setdefault("base", {}).setdefault("ref", st["default_branch"])
        pr.setdefault("merged", False)
        pr.setdefault("mergeable", True)
        pr.setdefault("draft", False)
        pr.setdefault("merged_at", None)
        pr.setdefault("merged_by", None)
        pr.setdefault("merge_commit_sha", None)
        pr.setdefault("files", [])
        # A PR of a huge change ("files_generated": N more files, as a
        # vendored tree or a generated one): Gitea pages them as any
        # list (routers/api/v1/repo/pull.go GetPullRequestFiles) and
        # counts them in the PR's changed_files (services/convert/pull.go
        # ToAPIPullRequest).
        pr["files"] += ["gen/f%d.c" % i
                        for i in range(pr.pop("files_generated", 0))]
        pr.setdefault("diff", None)
        reviews = pr.setdefault("reviews", [])
        for r in reviews:
            r.setdefault("user", "reviewer")
            r.setdefault("state", "COMMENT")
            r.setdefault("body", "")
            r.setdefault("commit_id", head["sha"])
            r.setdefault("dismissed", False)
            r.setdefault("submitted_at", pr["created_at"])
        if pr["state"] == "open" or not pr["merged"]:
            st["branches"].setdefault(head["ref"], head["sha"])

    def norm_pipeline(self, p):
        p.setdefault("number", 1)
        p.setdefault("commit", "")
        p.setdefault("status", "pending")
        p.setdefault("event", "pull_request")
        p.setdefault("branch", "")
        p.setdefault("created", BASE_TIME + 60 * p["number"])
        p.setdefault("started", 0)
        p.setdefault("finished", 0)
        p.setdefault("parent", 0)
        p.setdefault("workflows", [])

    # -- lookups ------------------------------------------------------------

    def all_items(self):
        return self.state["issues"] + self.state["pulls"]

    def item(self, n):
        for it in self.all_items():
            if it["number"] == n:
                return it
        return None

    def pull(self, n):
        for pr in self.state["pulls"]:
            if pr["number"] == n:
                return pr
        return None

    def is_pull(self, it):
        return "head" in it

    def next_number(self):
        return max([0] + [it["number"] for it in self.all_items()]) + 1

    def next_comment_id(self):
        ids = [c["id"] for it in self.all_items() for c in it["comments"]]
        return max([0] + ids) + 1

    def next_review_id(self):
        ids = [r.get("id", 0) for pr in self.state["pulls"]
               for r in pr["reviews"]]
        return max([0] + ids) + 1

    def find_comment(self, cid):
        for it in self.all_items():
            for c in it["comments"]:
                if c["id"] == cid:
                    return it, c
        return None, None

    def user_by_token(self, token):
        if not token:
            return None
        for u in self.state["users"]:
            if u.get("token") == token:
                return u
        return None

    def user_id(self, login):
        for u in self.state["users"]:
            if u["login"] == login:
                return u["id"]
        return 1000 + int(hashlib.sha1(login.encode()).hexdigest()[:6], 16)

    def is_admin(self, login):
        for u in self.state["users"]:
            if u["login"] == login:
                return bool(u.get("admin"))
        return False

    def repo_access(self, user):
        """The access of user (a scenario user, or None: anonymous) to
        the repository: "admin", "write" or "read"."""
        if user is None:
            return "read"
        if user.get("admin"):
            return "admin"
        return user.get("permission", "write")

    def label_by_id(self, lid):
        """A label of the repository or of its organisation by ID (routers/
        api/v1/repo/issue_label.go DeleteIssueLabel reads any label by
        ID: an issue may carry its organisation's labels)."""
        for lab in self.state["labels"] + self.state["org_labels"]:
            if lab["id"] == lid:
                return lab
        return None

    def item_label(self, ent):
        """An issue's label entry: a name (the repository's first label of
        that name) or an ID (any label: an organisation label, or the
        second of two labels of one name, which Gitea allows)."""
        if isinstance(ent, int) and not isinstance(ent, bool):
            return self.label_by_id(ent)
        return self.label_by_name(ent)

    def item_label_names(self, it):
        return [lab["name"] for lab in map(self.item_label, it["labels"])
                if lab]

    def label_by_name(self, name):
        for lab in self.state["labels"]:
            if lab["name"] == name:
                return lab
        return None

    # -- git ----------------------------------------------------------------

    def git(self, *args):
        """Runs git on the bare repo; returns (rc, stdout)."""
        try:
            res = subprocess.run(["git", "--git-dir=" + self.git_dir] +
                                 list(args), capture_output=True, text=True,
                                 timeout=20, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return 1, ""
        return res.returncode, res.stdout.strip()

    def git_branch_sha(self, branch):
        if not self.git_dir:
            return None
        if self.git_heads is None:
            rc, out = self.git("for-each-ref",
                               "--format=%(refname:strip=2) %(objectname)",
                               "refs/heads/")
            self.git_heads = dict(line.rsplit(" ", 1)
                                  for line in out.splitlines()
                                  if rc == 0 and " " in line)
        return self.git_heads.get(branch)

    def git_forget(self):
        """The bare repository's branches are read again (once a request,
        and after the simulator changed them)."""
        self.git_heads = None

    def refresh_heads(self):
        """With --git-dir: open PR heads follow the bare repo's branches."""
        if not self.git_dir:
            return
        for pr in self.state["pulls"]:
            if pr["state"] != "open":
                continue
            sha = self.git_branch_sha(pr["head"]["ref"])
            if sha:
                pr["head"]["sha"] = sha

    def branch_sha(self, name):
        sha = self.git_branch_sha(name)
        if sha:
            return sha
        if self.git_dir and name != self.state["default_branch"]:
            return None
        return self.state["branches"].get(name)

    # -- the merge check ---------------------------------------------------

    def is_wip(self, pr):
        """models/issues/pull.go IsWorkInProgress: a draft, or a title
        with a work-in-progress prefix ("WIP:", "[WIP]")."""
        return bool(pr["draft"] or re.match(r"(?i)^\s*(wip:|\[wip\])",
                                            pr["title"]))

    def mergeable_seen(self, pr):
        """The PR's "mergeable" as the API answers it, models/issues/
        pull.go Mergeable: false while the PR is being checked, has a
        conflict (the scenario's "mergeable": false) or is a work in
        progress.  A merge to a base puts every other open PR on it into
        checking (services/pull/merge.go Merge, AddTestPullRequestTask;
        services/pull/check.go AddToTaskQueue); here the check ends after
        the PR's "checking" reads (each answer that shows the PR counts
        one), so a test decides how long it lasts without a clock."""
        with self.lock:
            if pr.get("checking", 0) > 0:
                pr["checking"] -= 1
                return False
        return bool(pr["mergeable"]) and not self.is_wip(pr)

    def start_checks(self, merged):
        """After the merge of PR merged: every other open PR on its base
        is checked again (services/pull/merge.go Merge defers
        AddTestPullRequestTask; services/pull/pull.go AddTestPullRequestTask
        adds each unmerged PR of that base branch with
        check.go AddToTaskQueue, status PullRequestStatusChecking).  How
        many reads the check lasts: the scenario's "check_reads"
        (default 0, no check: the tests about it set 1 or more, where the
        read back after a refused merge still sees it)."""
        reads = self.state.get("check_reads", 0)
        for p in self.state["pulls"]:
            if p is not merged and p["state"] == "open" and \
                    p["base"]["ref"] == merged["base"]["ref"]:
                p["checking"] = reads

    def protection_refusal(self, pr):
        """services/pull/check.go CheckPullMergeable, then services/pull/
        merge.go CheckPullBranchProtections: the first rule matching the
        base (git_model.GetFirstMatchProtectedBranchRule, a glob) with
        more "required_approvals" than the head's approvals refuses with
        models.ErrDisallowedToMerge (Reason "Does not have enough
        approvals"), which MergePullRequest answers 405 with the error's
        text.  Returns that text, or None."""
        for rule in self.state["branch_protections"]:
            name = rule.get("rule_name", rule.get("branch_name", ""))
            if not fnmatch.fnmatchcase(pr["base"]["ref"], name):
                continue
            need = rule.get("required_approvals", 0)
            have = sum(1 for r in pr["reviews"]
                       if r["state"] == "APPROVED" and not r["dismissed"]
                       and r["commit_id"] == pr["head"]["sha"])
            if have < need:
                return ("not allowed to merge [reason: Does not have "
                        "enough approvals]")
            return None
        return None

    # -- statuses -----------------------------------------------------------

    def sha_statuses(self, sha):
        """Latest status per context for sha (synthesised from a bare
        scenario "state" when no statuses are listed)."""
        ent = self.state["statuses"].get(sha)
        if not ent:
            return []
        sts = ent.get("statuses") or []
        if not sts and ent.get("state"):
            sts = [{"context": "ci/woodpecker/pr/woodpecker",
                    "status": ent["state"], "target_url": ""}]
        latest = {}
        for s in sts:
            latest[s.get("context", "")] = s
        return list(latest.values())

    def combined_state(self, sha, sts=None):
        ent = self.state["statuses"].get(sha) or {}
        if ent.get("state"):
            return ent["state"]
        if sts is None:
            sts = self.sha_statuses(sha)
        if not sts:
            return ""
        return self.combine_states([s.get("status", "pending")
                                    for s in sts])

    def combine_states(self, states):
        """The combined state of the latest state of each context, by the
        dialect's rule.  Gitea 1.23 and later (modules/commitstatus/
        commit_status.go CommitStatusStates.Combine): failure when one is
        error or failure, success when all are success, warning or
        skipped, else pending.  Gitea up to 1.22 and Forgejo
        (services/convert/status.go ToCombinedStatus, NoBetterThan over
        modules/structs/commit_status.go's priorities error < failure <
        warning < pending < success): the first state, replaced by each
        one no better; a state without a priority (skipped) replaces
        none."""
        if self.dialect == "gitea-1.23":
            if any(x in ("error", "failure") for x in states):
                return "failure"
            if all(x in ("success", "warning", "skipped") for x in states):
                return "success"
            return "pending"
        rank = {"error": 0, "failure": 1, "warning": 2, "pending": 3,
                "success": 4}
        state = states[0]
        for x in states[1:]:
            if x in rank and state in rank and rank[x] <= rank[state]:
                state = x
        return state

    # -- request log --------------------------------------------------------

    def record(self, entry):
        with self.lock:
            self.seq += 1
            entry = dict(seq=self.seq, **entry)
            self.log.append(entry)
            if self.log_path:
                with open(self.log_path, "a", encoding="utf-8") as f:
                    f.write(json.dumps(entry) + "\n")

    def take_fault(self, method, path):
        """Returns the first matching fault (consuming one use) or None."""
        with self.lock:
            for f in self.faults:
                if f["method"] not in ("*", method):
                    continue
                if not re.search(f["path"], path):
                    continue
                if f["count"] > 0:
                    f["left"] -= 1
                    if f["left"] <= 0:
                        self.faults.remove(f)
                return f
        return None


# ---------------------------------------------------------------------------
# JSON shapes (as Gitea / Woodpecker print them)
# ---------------------------------------------------------------------------

class Shapes:
    def __init__(self, sim, base):
        self.sim = sim
        self.base = base
        self.owner, self.name = sim.state["repo"].split("/", 1)
        self.repo_api = "%s/api/v1/repos/%s" % (base, sim.state["repo"])
        self.repo_html = "%s/%s" % (base, sim.state["repo"])

    def user(self, login):
        if login is None:
            return None
        uid = self.sim.user_id(login)
        return {"id": uid, "login": login, "login_name": "", "source_id": 0,
                "full_name": "", "email": "%s@noreply.localhost" % login,
                "avatar_url": "%s/avatars/%d" % (self.base, uid),
                "html_url": "%s/%s" % (self.base, login), "language": "",
                "is_admin": self.sim.is_admin(login),
                "last_login": "0001-01-01T00:00:00Z",
                "created": iso_of(BASE_TIME), "restricted": False,
                "active": True, "prohibit_login": False, "location": "",
                "website": "", "description": "", "visibility": "public",
                "followers_count": 0, "following_count": 0,
                "starred_repos_count": 0, "username": login}

    def repo_brief(self):
        return {"id": 1, "name": self.name, "owner": self.owner,
                "full_name": self.sim.state["repo"]}

    def label(self, lab):
        return {"id": lab["id"], "name": lab["name"], "exclusive": False,
                "is_archived": False, "color": lab["color"],
                "description": lab.get("description", ""),
                "url": "%s/labels/%d" % (self.repo_api, lab["id"])}

    def item_labels(self, it):
        out = []
        for ent in it["labels"]:
            lab = self.sim.item_label(ent)
            if lab:
                out.append(self.label(lab))
        return out

    def issue(self, it):
        n = it["number"]
        kind = "pulls" if self.sim.is_pull(it) else "issues"
        pr = None
        if self.sim.is_pull(it):
            pr = {"merged": it["merged"], "merged_at": it["merged_at"],
                  "draft": it["draft"],
                  "html_url": "%s/pulls/%d" % (self.repo_html, n)}
        return {"id": 10000 + n,
                "url": "%s/issues/%d" % (self.repo_api, n),
                "html_url": "%s/%s/%d" % (self.repo_html, kind, n),
                "number": n, "user": self.user(it["user"]),
                "original_author": "", "original_author_id": 0,
                "title": it["title"], "body": it["body"], "ref": "",
                "assets": [], "labels": self.item_labels(it),
                "milestone": None, "assignee": None, "assignees": None,
                "state": it["state"], "is_locked": False,
                "comments": len(it["comments"]),
                "created_at": it["created_at"],
                "updated_at": it["updated_at"],
                "closed_at": it["closed_at"], "due_date": None,
                "pull_request": pr, "repository": self.repo_brief(),
                "pin_order": 0}

    def comment(self, it, c):
        n = it["number"]
        kind = "pulls" if self.sim.is_pull(it) else "issues"
        return {"id": c["id"],
                "html_url": "%s/%s/%d#issuecomment-%d" % (
                    self.repo_html, kind, n, c["id"]),
                "pull_request_url": ("%s/pulls/%d" % (self.repo_html, n)
                                     if kind == "pulls" else ""),
                "issue_url": ("%s/issues/%d" % (self.repo_html, n)
                              if kind == "issues" else ""),
                "user": self.user(c["user"]), "original_author": "",
                "original_author_id": 0, "body": c["body"], "assets": [],
                "created_at": c["created_at"], "updated_at": c["updated_at"]}

    def branch_ref(self, ref, sha):
        return {"label": ref, "ref": ref, "sha": sha, "repo_id": 1,
                "repo": self.repo_brief()}

    def head_ref(self, pr):
        """A PR's head as Gitea and Forgejo print it (services/convert/
        pull.go, ToAPIPullRequest): "label" is always the branch's name;
        "ref" starts as the pull ref "refs/pull/N/head" and becomes the
        branch's name only while the branch exists in the head
        repository, so a PR whose branch was deleted (by the merge's
        delete_branch_after_merge, or by hand) keeps the pull ref.  The
        sha is then the pull ref's, the PR's last head."""
        ref = pr["head"]["ref"]
        out = self.branch_ref(ref, pr["head"]["sha"])
        if self.sim.branch_sha(ref) is None:
            out["ref"] = "refs/pull/%d/head" % pr["number"]
        return out

    def pull(self, pr):
        n = pr["number"]
        base_sha = (self.sim.branch_sha(pr["base"]["ref"]) or
                    fake_sha("base-" + pr["base"]["ref"]))
        files = pull_files(pr)
        return {"id": 20000 + n, "url": "%s/pulls/%d" % (self.repo_html, n),
                "number": n, "user": self.user(pr["user"]),
                "title": pr["title"], "body": pr["body"],
                "labels": self.item_labels(pr), "milestone": None,
                "assignee": None, "assignees": None,
                "requested_reviewers": None,
                "requested_reviewers_teams": None, "state": pr["state"],
                "draft": pr["draft"], "is_locked": False,
                "comments": len(pr["comments"]), "review_comments": 0,
                "additions": sum(f["additions"] for f in files),
                "deletions": sum(f["deletions"] for f in files),
                "changed_files": len(files),
                "html_url": "%s/pulls/%d" % (self.repo_html, n),
                "diff_url": "%s/pulls/%d.diff" % (self.repo_html, n),
                "patch_url": "%s/pulls/%d.patch" % (self.repo_html, n),
                "mergeable": self.sim.mergeable_seen(pr),
                "merged": pr["merged"],
                "merged_at": pr["merged_at"],
                "merge_commit_sha": pr["merge_commit_sha"],
                "merged_by": self.user(pr["merged_by"]),
                "allow_maintainer_edit": False,
                "base": self.branch_ref(pr["base"]["ref"], base_sha),
                "head": self.head_ref(pr),
                "merge_base": base_sha, "due_date": None,
                "created_at": pr["created_at"],
                "updated_at": pr["updated_at"],
                "closed_at": pr["closed_at"], "pin_order": 0}

    def review(self, pr, r):
        stale = r.get("stale")
        if stale is None:
            stale = r["commit_id"] != pr["head"]["sha"]
        return {"id": r["id"], "user": self.user(r["user"]), "team": None,
                "state": r["state"], "body": r["body"],
                "commit_id": r["commit_id"], "stale": bool(stale),
                "official": r["state"] in ("APPROVED", "REQUEST_CHANGES"),
                "dismissed": bool(r["dismissed"]), "comments_count": 0,
                "submitted_at": r["submitted_at"],
                "updated_at": r.get("updated_at", r["submitted_at"]),
                "html_url": "%s/pulls/%d#issuecomment-%d" % (
                    self.repo_html, pr["number"], r["id"]),
                "pull_request_url": "%s/pulls/%d" % (self.repo_html,
                                                     pr["number"])}

    def status(self, sha, s, idx):
        return {"id": idx + 1, "status": s.get("status", "pending"),
                "target_url": s.get("target_url", ""),
                "description": s.get("description", ""),
                "url": "%s/statuses/%s" % (self.repo_api, sha),
                "context": s.get("context", ""),
                "creator": self.user(s.get("creator", "woodpecker")),
                "created_at": s.get("created_at", iso_of(BASE_TIME)),
                "updated_at": s.get("updated_at",
                                    s.get("created_at", iso_of(BASE_TIME)))}

    def combined(self, sha, page=None):
        """routers/api/v1/repo/status.go GetCombinedCommitStatusByRef: the
        latest status of each context, one page of them (page: the
        handler's paginate), combined over that page alone; total_count is
        the page's (services/convert/status.go ToCombinedStatus)."""
        sts = self.sim.sha_statuses(sha)
        if page is not None:
            sts = page(sts)
        if not sts:
            return {"state": "", "sha": "", "total_count": 0,
                    "statuses": None, "repository": None, "commit_url": "",
                    "url": ""}
        return {"state": self.sim.combined_state(sha, sts), "sha": sha,
                "total_count": len(sts),
                "statuses": [self.status(sha, s, i)
                             for i, s in enumerate(sts)],
                "repository": self.repo_brief(),
                "commit_url": "%s/git/commits/%s" % (self.repo_api, sha),
                "url": "%s/commits/%s/status" % (self.repo_api, sha)}

    def branch(self, name, sha):
        return {"name": name,
                "commit": {"id": sha, "message": "commit %s\n" % sha[:7],
                           "url": "%s/commit/%s" % (self.repo_html, sha),
                           "author": {"name": "dev", "email": "dev@localhost",
                                      "username": "dev"},
                           "committer": {"name": "dev",
                                         "email": "dev@localhost",
                                         "username": "dev"},
                           "verification": None,
                           "timestamp": iso_of(BASE_TIME),
                           "added": None, "removed": None, "modified": None},
                "protected": False, "required_approvals": 0,
                "enable_status_check": False, "status_check_contexts": [],
                "user_can_push": True, "user_can_merge": True,
                "effective_branch_protection_name": ""}


def pull_files(pr):
    """A PR's changed files as Gitea's ChangedFile objects (no URLs)."""
    out = []
    for f in pr["files"]:
        if isinstance(f, str):
            f = {"filename": f}
        add = f.get("additions", 1)
        dele = f.get("deletions", 0)
        out.append({"filename": f["filename"],
                    "previous_filename": f.get("previous_filename", ""),
                    "status": f.get("status", "changed"), "additions": add,
                    "deletions": dele, "changes": add + dele})
    return out


def pull_diff(pr):
    if pr.get("diff") is not None:
        return pr["diff"]
    parts = []
    for f in pull_files(pr):
        fn = f["filename"]
        parts.append("diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n"
                     "@@ -1 +1 @@\n-old\n+new\n" % (fn, fn, fn, fn))
    return "".join(parts)


# Woodpecker's pipeline statuses (server/model/const.go StatusValue):
# 2.x (v2.8.3) has no "canceled" (a cancel makes a pipeline "killed",
# server/pipeline/cancel.go); 3.14 added it for a pipeline canceled before
# any workflow ran.
WP_STATUSES = {
    "2": ("skipped", "pending", "running", "success", "failure", "killed",
          "error", "blocked", "declined", "created"),
    "3": ("skipped", "pending", "running", "success", "failure", "killed",
          "canceled", "error", "blocked", "declined", "created"),
}


def wp_status(status, version):
    """A scenario's status as that version says it: "canceled" is
    "killed" on 2.x."""
    if version == "2" and status == "canceled":
        return "killed"
    return status


def wp_pipeline(p, version="3", with_workflows=True):
    """A pipeline in the JSON shape of Woodpecker `version`: its times
    are created_at, updated_at, started_at, finished_at and reviewed_at
    on 2.x, created, updated, started, finished and reviewed on 3.x
    (server/model/pipeline.go at v2.8.3 and v3.0.0)."""
    times = {"created": p["created"], "updated": p.get("updated",
                                                       p["created"]),
             "started": p["started"], "finished": p["finished"],
             "reviewed": 0}
    if version == "2":
        times = {k + "_at": v for k, v in times.items()}
    out = {"id": 1000 + p["number"], "number": p["number"],
           "author": p.get("author", "dev"), "parent": p["parent"],
           "event": p["event"], "status": wp_status(p["status"], version),
           "errors": None, "deploy_to": "", "deploy_task": "",
           "commit": p["commit"],
           "branch": p["branch"], "ref": p.get("ref", ""),
           "refspec": p.get("refspec", ""), "title": p.get("title", ""),
           "message": p.get("message", ""),
           "timestamp": p.get("timestamp", p["created"]),
           "sender": p.get("author", "dev"), "author_avatar": "",
           "author_email": "", "forge_url": "", "reviewed_by": ""}
    out.update(times)
    if with_workflows:
        out["workflows"] = []
        for wi, w in enumerate(p["workflows"]):
            wf = {"id": w.get("id", p["number"] * 100 + wi),
                  "pipeline_id": out["id"], "pid": w.get("pid", wi + 1),
                  "name": w.get("name", "woodpecker"),
                  "state": wp_status(w.get("state", p["status"]), version),
                  "started": w.get("started", p["started"]),
                  "stopped": w.get("stopped", p["finished"]),
                  "agent_id": 1, "platform": "linux/amd64",
                  "children": []}
            for ci, c in enumerate(w.get("children", [])):
                wf["children"].append({
                    "id": c.get("id", p["number"] * 100 + 10 + ci),
                    "uuid": c.get("uuid", fake_sha("step-%d-%d" % (
                        p["number"], ci))[:32]),
                    "pipeline_id": out["id"],
                    "pid": c.get("pid", wf["pid"] + ci + 1),
                    "ppid": wf["pid"], "name": c.get("name", "step"),
                    "state": wp_status(c.get("state", "success"), version),
                    "error": c.get("error", ""),
                    "failure": c.get("failure", "fail"),
                    "exit_code": c.get("exit_code", 0),
                    "started": c.get("started", p["started"]),
                    "stopped": c.get("stopped", p["finished"]),
                    "type": c.get("type", "commands")})
            out["workflows"].append(wf)
    return out


def step_ids(p):
    """The step ids of a pipeline, as its JSON shows them."""
    for w in wp_pipeline(p)["workflows"]:
        for c in w["children"]:
            yield c["id"]


def wrong_type(value):
    """The fault mode "wrongtype": the same data with the wrong JSON types."""
    if isinstance(value, list):
        return {"message": "wrongtype", "data": value}
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if isinstance(v, bool):
                out[k] = "true" if v else "false"
            elif isinstance(v, (int, float)):
                out[k] = str(v)
            elif isinstance(v, list):
                out[k] = {"items": v}
            elif isinstance(v, dict):
                out[k] = wrong_type(v)
            elif v is None:
                out[k] = 0
            else:
                out[k] = [v]
        return out
    return 42


def wrong_value(v):
    """One value made another JSON type."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, list):
        return {"items": v}
    if isinstance(v, dict):
        return [v]
    if v is None:
        return 0
    return [v]


def wrong_field(payload, fault):
    """The fault mode "wrongtype" with a "field" (a dotted path): only that
    field changes, in the items whose "number" (else "id") is "item" (every
    item without one); to "value" when given, else to another type
    (wrong_value); with "remove" true it goes."""
    items = payload if isinstance(payload, list) else [payload]
    keys = str(fault["field"]).split(".")
    for it in items:
        if not isinstance(it, dict):
            continue
        if "item" in fault and it.get("number", it.get("id")) != fault["item"]:
            continue
        obj = it
        for k in keys[:-1]:
            obj = obj.get(k) if isinstance(obj, dict) else None
        if not isinstance(obj, dict):
            continue
        last = keys[-1]
        if fault.get("remove"):
            obj.pop(last, None)
        elif "value" in fault:
            obj[last] = fault["value"]
        elif last in obj:
            obj[last] = wrong_value(obj[last])
    return payload


# ---------------------------------------------------------------------------
# HTTP handler
# ---------------------------------------------------------------------------

ROUTES = []


def route(method, pattern):
    def deco(fn):
        ROUTES.append((method, re.compile("^" + pattern + "$"), fn))
        return fn
    return deco


REPO = r"/api/v1/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "forge-sim/1"
    # Headers and body go out in separate writes; with Nagle's algorithm
    # the body waits for the client's delayed ACK (40 ms per answer on a
    # keep-alive connection), which a real forge does not do.
    disable_nagle_algorithm = True
    sim = None  # set in main()

    def log_message(self, fmt, *args):  # quiet
        pass

    # -- plumbing -------------------------------------------------------

    def read_body(self):
        te = self.headers.get("Transfer-Encoding", "")
        if te.lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline().strip():
                        pass
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
            return data
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def token(self):
        auth = self.headers.get("Authorization", "")
        parts = auth.split(None, 1)
        if len(parts) == 2 and parts[0].lower() in ("token", "bearer"):
            return parts[1].strip()
        q = self.query
        for key in ("token", "access_token"):
            if q.get(key):
                return q[key][0]
        return None

    def qget(self, key, default=None):
        v = self.query.get(key)
        return v[0] if v else default

    def qint(self, key, default=0):
        try:
            return int(self.qget(key, default))
        except (TypeError, ValueError):
            return default

    def paginate(self, items, link=False):
        """Gitea's list options (routers/api/v1/utils/page.go
        GetListOptions, services/convert/utils.go ToCorrectPageSize):
        1-based page, limit <= 0 is DefaultPagingNum (30), a limit above
        the page cap ([api] MAX_RESPONSE_ITEMS, --page-cap) is the cap:
        every page is then that short.  Sets X-Total-Count, and with link
        the Link header as the lists that call SetLinkHeader do (issues,
        pulls, a PR's files, a commit's statuses)."""
        page = max(self.qint("page", 1), 1)
        limit = self.qint("limit", 0)
        if limit <= 0:
            limit = DEFAULT_LIMIT
        elif limit > self.sim.page_cap:
            limit = self.sim.page_cap
        self.extra_headers["X-Total-Count"] = str(len(items))
        if link:
            self.link_header(len(items), limit, page)
        start = (page - 1) * limit
        return items[start:start + limit]

    def link_header(self, total, size, page):
        """Gitea's Link header (services/context/api.go SetLinkHeader,
        genAPILinks): rel="next" and rel="last" while a page follows this
        one, rel="first" and rel="prev" past the first page; none at all
        on a list of one page."""
        pages = max((total + size - 1) // size, 1)
        page = min(page, pages)
        links = []
        url = urllib.parse.urlsplit(self.path)
        query = [(k, v) for k, v in urllib.parse.parse_qsl(
            url.query, keep_blank_values=True) if k != "page"]

        def at(n):
            q = urllib.parse.urlencode(query + [("page", str(n))])
            return "<%s%s?%s>" % (self.base, url.path, q)
        if total > page * size:
            links += ['%s; rel="next"' % at(page + 1),
                      '%s; rel="last"' % at(pages)]
        if page > 1:
            links += ['%s; rel="first"' % at(1),
                      '%s; rel="prev"' % at(page - 1)]
        if links:
            self.extra_headers["Link"] = ",".join(links)

    def wp_paginate(self, items):
        """Woodpecker's pages (server/router/middleware/session/
        pagination.go): "page" and "perPage" only, perPage out of 1..50
        is 50; no count and no Link header is sent
        (server/api/pipeline.go GetPipelines)."""
        page = max(self.qint("page", 1), 1)
        per = self.qint("perPage", 0)
        if per < 1 or per > WP_DEFAULT_PER_PAGE:
            per = WP_DEFAULT_PER_PAGE
        start = (page - 1) * per
        return items[start:start + per]

    def json_body(self):
        if self.body_obj is None and self.raw_body:
            raise HTTPError(422, "invalid JSON body")
        if self.body_obj is None:
            return {}
        if not isinstance(self.body_obj, dict):
            raise HTTPError(422, "JSON body must be an object")
        return self.body_obj

    def need_user(self):
        if self.user is None:
            raise HTTPError(401, "token is required")
        return self.user

    def send(self, status, payload=None, text=None, ctype=None, fault=None):
        """Writes a whole response (status, headers, body) honouring the
        fault mode; returns nothing."""
        if fault == "badjson":
            body = b'{"x":'
            ctype = "application/json"
        elif text is not None:
            body = text.encode() if isinstance(text, str) else text
            if fault == "wrongtype":
                body, ctype = b"42", "application/json"
            ctype = ctype or "text/plain; charset=utf-8"
        elif payload is not None:
            if fault == "wrongtype":
                payload = wrong_type(payload)
            body = json.dumps(payload).encode()
            ctype = "application/json;charset=utf-8"
        else:
            body = b""
        self.send_response(status)
        if ctype and body:
            self.send_header("Content-Type", ctype)
        for k, v in self.extra_headers.items():
            self.send_header(k, v)
        if fault == "truncate" and body:
            self.send_header("Content-Length", str(len(body) * 2 + 16))
            self.end_headers()
            self.wfile.write(body[:max(1, len(body) // 2)])
            self.wfile.flush()
            self.close_connection = True
            return
        if fault == "truncate":
            self.send_header("Content-Length", "64")
            self.end_headers()
            self.wfile.write(b"{")
            self.wfile.flush()
            self.close_connection = True
            return
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    # -- dispatch -------------------------------------------------------

    def do_GET(self):
        self.dispatch()

    def do_POST(self):
        self.dispatch()

    def do_PATCH(self):
        self.dispatch()

    def do_PUT(self):
        self.dispatch()

    def do_DELETE(self):
        self.dispatch()

    def dispatch(self):
        sim = self.sim
        self.extra_headers = {}
        url = urllib.parse.urlsplit(self.path)
        self.url_path = urllib.parse.unquote(url.path)
        self.query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        self.raw_body = self.read_body()
        self.body_obj = None
        if self.raw_body:
            try:
                self.body_obj = json.loads(self.raw_body.decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                self.body_obj = None
        host = self.headers.get("Host") or "127.0.0.1"
        self.base = "http://" + host

        if self.url_path.startswith("/_admin/"):
            self.dispatch_admin()
            return
        with sim.lock:
            sim.inflight += 1
            inflight = sim.inflight
        try:
            self.dispatch_api(inflight)
        finally:
            with sim.lock:
                sim.inflight -= 1

    def dispatch_api(self, inflight):
        """One API request; inflight: how many were being handled when it
        came in (itself included)."""
        sim = self.sim
        with sim.lock:
            self.user = sim.user_by_token(self.token())
        login = self.user["login"] if self.user else None
        log_body = self.body_obj
        if log_body is None and self.raw_body:
            log_body = self.raw_body.decode("utf-8", "replace")
        entry = {"method": self.command, "path": self.path, "user": login,
                 "status": 0, "body": log_body, "inflight": inflight,
                 "agent": self.headers.get("User-Agent", "")}
        fault = sim.take_fault(self.command, self.path)
        mode = fault["mode"] if fault else None
        if mode:
            entry["fault"] = mode
        if mode == "delay":
            time.sleep(float(fault.get("delay", 5)))
        if mode == "502once" and not self.first_of_key(fault):
            mode = None
            del entry["fault"]
        if mode == "hang":
            self.hang(entry, fault)
            return
        if mode == "nothttp":
            self.not_http(entry)
            return
        if mode in ("500", "404", "409", "502once"):
            status = 502 if mode == "502once" else int(mode)
            entry["status"] = status
            sim.record(entry)
            msg = {500: "simulated internal error",
                   502: "simulated internal error", 404: NOT_FOUND_MSG,
                   409: "simulated conflict"}[status]
            msg = fault.get("message", msg)
            self.try_send(status, {"message": msg, "url": self.base})
            return
        status, payload, text, ctype = self.handle_api()
        entry["status"] = status
        sim.record(entry)
        if mode == "wrongtype" and "field" in fault:
            payload = wrong_field(copy.deepcopy(payload), fault)
            mode = None
        if mode == "stall":
            time.sleep(float(fault.get("delay", 5)))
            self.close_connection = True
        if mode == "badjson":
            status = 200 if status >= 400 else status
        self.try_send(status, payload, text, ctype,
                      mode if mode in ("truncate", "badjson", "wrongtype")
                      else None)

    def first_of_key(self, fault):
        """The fault mode "502once": true for the first request of its
        key (method and path with query) under this fault."""
        key = self.command + " " + self.path
        with self.sim.lock:
            if key in fault["seen"]:
                return False
            fault["seen"].add(key)
            return True

    def hang(self, entry, fault):
        """The fault mode "hang": no answer, the request not handled; the
        connection is dropped after the delay."""
        entry["status"] = 0
        self.sim.record(entry)
        time.sleep(float(fault.get("delay", 5)))
        self.close_connection = True

    def not_http(self, entry):
        """The fault mode "nothttp": the request not handled, and an answer
        that is no HTTP at all (what a client reading a connection left
        dirty by an earlier answer gets), then the connection closed."""
        entry["status"] = 0
        self.sim.record(entry)
        try:
            self.wfile.write(b"{not an HTTP answer}\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def try_send(self, *args):
        try:
            self.send(*args)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def handle_api(self):
        """Routes one API request; returns (status, payload, text, ctype)."""
        sim = self.sim
        try:
            with sim.lock:
                sim.git_forget()
                if self.url_path.startswith("/api/v1/"):
                    if self.user is None:
                        raise HTTPError(401, "token is required")
                    if "/pulls" in self.url_path:
                        sim.refresh_heads()
                elif self.url_path.startswith("/api/"):
                    self.check_woodpecker_auth()
                for method, rx, fn in ROUTES:
                    if method != self.command:
                        continue
                    m = rx.match(self.url_path)
                    if not m:
                        continue
                    args = m.groupdict()
                    if "owner" in args:
                        full = "%s/%s" % (args.pop("owner"), args.pop("repo"))
                        if full != sim.state["repo"]:
                            raise HTTPError(404, NOT_FOUND_MSG)
                    self.shapes = Shapes(sim, self.base)
                    res = fn(self, **args)
                    if len(res) == 2:
                        return res[0], res[1], None, None
                    return res
                raise HTTPError(404, NOT_FOUND_MSG)
        except HTTPError as e:
            return self.error_reply(e)
        except Exception as e:  # a simulator bug: answer 500, keep serving
            traceback.print_exc()
            return self.error_reply(HTTPError(500, "forge-sim: %r" % e))

    def error_reply(self, e):
        """Gitea errors are JSON {errors, message, url}; Woodpecker's are
        plain text."""
        if self.url_path.startswith("/api/v1/") or \
                self.url_path.startswith("/_admin/"):
            return e.status, {"errors": None, "message": e.message,
                              "url": self.base + "/api/swagger"}, None, None
        return e.status, None, (e.message or "error") + "\n", None

    def check_woodpecker_auth(self):
        want = self.sim.state["woodpecker"].get("token")
        auth = self.headers.get("Authorization", "")
        parts = auth.split(None, 1)
        got = parts[1].strip() if len(parts) == 2 and \
            parts[0].lower() == "bearer" else None
        if not got or (want and got != want):
            raise HTTPError(401, "Unauthorized")

    def dispatch_admin(self):
        self.user = None
        self.query = self.query or {}
        status, payload, text, ctype = self.handle_api()
        self.try_send(status, payload, text, ctype, None)

    # =====================================================================
    # Gitea endpoints
    # =====================================================================

    @route("GET", r"/api/v1/user")
    def get_user(self):
        return 200, self.shapes.user(self.need_user()["login"])

    @route("GET", r"/api/v1/user/teams")
    def get_user_teams(self):
        # Gitea routers/api/v1/api.go: GET /user/teams is
        # org.ListUserTeams (routers/api/v1/org/team.go), the doer's teams
        # in every organisation, each shaped by services/convert
        # (ToTeams: modules/structs/org_team.go Team, with its
        # organization).  A scenario user's "teams" are [{"name", "org"}].
        user = self.need_user()
        out = []
        for i, t in enumerate(user.get("teams", [])):
            org = t.get("org", self.shapes.owner)
            out.append({"id": 100 + i, "name": t["name"],
                        "description": "", "includes_all_repositories": False,
                        "permission": t.get("permission", "write"),
                        "can_create_org_repo": False,
                        "units": ["repo.code", "repo.issues", "repo.pulls"],
                        "organization": {"id": 50, "name": org,
                                         "username": org,
                                         "full_name": org}})
        return 200, out

    @route("GET", REPO)
    def get_repo(self):
        sh = self.shapes
        return 200, {"id": 1, "owner": sh.user(sh.owner), "name": sh.name,
                     "full_name": self.sim.state["repo"], "private": False,
                     "fork": False, "empty": False, "archived": False,
                     "html_url": sh.repo_html,
                     "clone_url": sh.repo_html + ".git",
                     "default_branch": self.sim.state["default_branch"],
                     "has_issues": True, "has_pull_requests": True,
                     "open_issues_count": sum(
                         1 for i in self.sim.state["issues"]
                         if i["state"] == "open"),
                     "open_pr_counter": sum(
                         1 for p in self.sim.state["pulls"]
                         if p["state"] == "open"),
                     "permissions": self.repo_permissions()}

    def repo_permissions(self):
        # Gitea services/convert/repository.go (innerToRepo): the doer's
        # access as admin (IsAdmin()), push (write to the code unit) and
        # pull (read of it); anonymous readers get pull only.
        access = self.sim.repo_access(self.user)
        return {"admin": access == "admin",
                "push": access in ("admin", "write"),
                "pull": True}

    @route("GET", REPO + r"/branch_protections")
    def list_branch_protections(self):
        # Gitea routers/api/v1/api.go: the branch_protections group is
        # behind reqToken() and reqAdmin() (401 without a token, 403 for
        # a user who is not an admin of the repository);
        # routers/api/v1/repo/branch.go ListBranchProtections answers
        # every rule, each shaped as modules/structs/repo_branch.go's
        # BranchProtection (services/convert/convert.go).
        user = self.need_user()
        if self.sim.repo_access(user) != "admin":
            raise HTTPError(403, "reqAdmin: admin permission required")
        out = []
        for i, rule in enumerate(self.sim.state["branch_protections"]):
            name = rule.get("rule_name", rule.get("branch_name", ""))
            bp = {"branch_name": name, "rule_name": name,
                  "priority": i + 1, "enable_push": False,
                  "enable_push_whitelist": False,
                  "push_whitelist_usernames": [],
                  "push_whitelist_teams": [],
                  "push_whitelist_deploy_keys": False,
                  "enable_force_push": False,
                  "enable_force_push_allowlist": False,
                  "force_push_allowlist_usernames": [],
                  "force_push_allowlist_teams": [],
                  "force_push_allowlist_deploy_keys": False,
                  "enable_merge_whitelist": False,
                  "merge_whitelist_usernames": [],
                  "merge_whitelist_teams": [],
                  "enable_status_check": False,
                  "status_check_contexts": [], "required_approvals": 0,
                  "enable_approvals_whitelist": False,
                  "approvals_whitelist_username": [],
                  "approvals_whitelist_teams": [],
                  "block_on_rejected_reviews": False,
                  "block_on_official_review_requests": False,
                  "block_on_outdated_branch": False,
                  "dismiss_stale_approvals": False,
                  "ignore_stale_approvals": False,
                  "require_signed_commits": False,
                  "protected_file_patterns": "",
                  "unprotected_file_patterns": "",
                  "created_at": iso_of(BASE_TIME),
                  "updated_at": iso_of(BASE_TIME)}
            # Whether a repository admin may merge past the rule: Gitea
            # (1.23+) names it block_admin_merge_override, Forgejo
            # apply_to_admins (each modules/structs/repo_branch.go;
            # services/pull/check.go reads it for a repository admin).
            if self.sim.dialect == "forgejo":
                bp["apply_to_admins"] = False
            else:
                bp["block_admin_merge_override"] = False
            bp.update({k: v for k, v in rule.items()
                       if k not in ("branch_name", "rule_name")})
            out.append(bp)
        return 200, out

    @route("GET", r"/api/v1/version")
    def get_version(self):
        """routers/api/v1/misc/version.go: Gitea's own version; Forgejo's
        carries the Gitea it is compatible with after "+gitea-"."""
        return 200, {"version": {"forgejo": "9.0.3+gitea-1.22.0",
                                 "gitea-1.23": "1.23.8"}.get(
                                     self.sim.dialect, "1.22.6")}

    # -- issues -----------------------------------------------------------

    def parse_index(self, n):
        try:
            return int(n)
        except ValueError:
            raise HTTPError(404, NOT_FOUND_MSG)

    def get_item(self, n):
        it = self.sim.item(self.parse_index(n))
        if it is None:
            raise HTTPError(404, NOT_FOUND_MSG)
        return it

    @route("GET", REPO + r"/issues")
    def list_issues(self):
        sim = self.sim
        state = self.qget("state", "open") or "open"
        kind = self.qget("type", "")
        # As Gitea: names that are not labels of the repository are
        # dropped, so a filter of only unknown names filters nothing.
        want = [x for x in (self.qget("labels", "") or "").split(",")
                if sim.label_by_name(x)]
        q = (self.qget("q", "") or "").lower()
        creator = self.qget("created_by", "")
        items = []
        for it in sim.all_items():
            if state != "all" and it["state"] != state:
                continue
            if kind == "issues" and sim.is_pull(it):
                continue
            if kind == "pulls" and not sim.is_pull(it):
                continue
            if any(w not in self.sim.item_label_names(it) for w in want):
                continue
            if q and q not in it["title"].lower() and \
                    q not in it["body"].lower():
                continue
            if creator and it["user"] != creator:
                continue
            items.append(it)
        # Gitea: newest first whatever "sort" says, for ListIssues reads
        # none (routers/api/v1/repo/issue.go: SortBy is always
        # issue_indexer.SortByCreatedDesc).  Forgejo reads it
        # (issue_indexer.ParseSortBy, the same default).
        sort = self.qget("sort", "") if self.sim.dialect == "forgejo" \
            else ""
        items = self.sort_items(items, sort)
        return 200, [self.shapes.issue(it)
                     for it in self.paginate(items, link=True)]

    @staticmethod
    def sort_items(items, sort):
        """The orders of models/issues/issue_search.go applySorts (and of
        the indexer's SortBy): newest first unless sort names another;
        ties by number, as by id."""
        created = lambda it: (parse_iso(it["created_at"]), it["number"])
        updated = lambda it: (parse_iso(it["updated_at"]), it["number"])
        comments = lambda it: (len(it["comments"]), it["number"])
        orders = {"oldest": (created, False),
                  "recentupdate": (updated, True),
                  "leastupdate": (updated, False),
                  "mostcomment": (comments, True),
                  "leastcomment": (comments, False)}
        key, rev = orders.get(sort, (created, True))
        return sorted(items, key=key, reverse=rev)

    @route("POST", REPO + r"/issues")
    def create_issue(self):
        user = self.need_user()
        body = self.json_body()
        title = (body.get("title") or "").strip()
        if not title:
            raise HTTPError(422, "title is required")
        names = []
        for lid in body.get("labels") or []:
            lab = self.sim.label_by_id(lid)
            if lab:
                names.append(lab["name"])
        ts = now_iso()
        it = {"number": self.sim.next_number(), "title": title,
              "body": body.get("body", ""), "state": "open",
              "labels": names, "user": user["login"], "created_at": ts,
              "updated_at": ts, "closed_at": None, "comments": []}
        self.sim.state["issues"].append(it)
        return 201, self.shapes.issue(it)

    @route("GET", REPO + r"/issues/(?P<n>[^/]+)")
    def get_issue(self, n):
        return 200, self.shapes.issue(self.get_item(n))

    # routers/api/v1/repo/issue.go EditIssue: 201 (not 200), 412 to change
    # the state of a merged PR; a state change is a timeline event
    # (close/reopen comment) and moves updated_at.
    @route("PATCH", REPO + r"/issues/(?P<n>[^/]+)")
    def edit_issue(self, n):
        self.need_user()
        it = self.get_item(n)
        body = self.json_body()
        if "state" in body and body["state"] is not None:
            if body["state"] not in ("open", "closed"):
                raise HTTPError(422, "invalid state")
            if self.sim.is_pull(it) and it["merged"]:
                raise HTTPError(412, "cannot change state of this pull "
                                "request, it was already merged")
        self.apply_edit(it, body)
        return 201, self.shapes.issue(it)

    def apply_edit(self, it, body):
        ts = now_iso()
        if body.get("title") is not None:
            it["title"] = body["title"]
        if body.get("body") is not None:
            it["body"] = body["body"]
        st = body.get("state")
        if st and st != it["state"]:
            it["state"] = st
            it["closed_at"] = ts if st == "closed" else None
        it["updated_at"] = ts

    # -- comments ---------------------------------------------------------

    # routers/api/v1/repo/issue_comment.go ListIssueComments: every
    # comment in one answer, oldest first; "since" and "before" are read,
    # "page" and "limit" are not.
    @route("GET", REPO + r"/issues/(?P<n>[^/]+)/comments")
    def list_comments(self, n):
        it = self.get_item(n)
        since = parse_iso(self.qget("since", ""))
        before = parse_iso(self.qget("before", ""))
        out = []
        for c in sorted(it["comments"], key=lambda c: (
                parse_iso(c["created_at"]), c["id"])):
            upd = parse_iso(c["updated_at"])
            if since and upd < since:
                continue
            if before and upd >= before:
                continue
            out.append(self.shapes.comment(it, c))
        return 200, out

    # routers/api/v1/repo/issue_comment.go CreateIssueComment: 201.
    @route("POST", REPO + r"/issues/(?P<n>[^/]+)/comments")
    def create_comment(self, n):
        user = self.need_user()
        it = self.get_item(n)
        body = self.json_body()
        if not isinstance(body.get("body"), str) or not body["body"]:
            raise HTTPError(422, "body is required")
        c = self.sim_add_comment(it, user["login"], body["body"])
        return 201, self.shapes.comment(it, c)

    def sim_add_comment(self, it, login, text):
        """A comment moves its issue's updated_at, as every timeline
        event does (models/issues/comment.go CreateComment:
        updateCommentInfos ends with UpdateIssueCols "updated_unix")."""
        ts = now_iso()
        c = {"id": self.sim.next_comment_id(), "user": login, "body": text,
             "created_at": ts, "updated_at": ts}
        it["comments"].append(c)
        it["updated_at"] = ts
        return c

    @route("GET", REPO + r"/issues/comments/(?P<cid>\d+)")
    def get_comment(self, cid):
        it, c = self.sim.find_comment(int(cid))
        if c is None:
            raise HTTPError(404, NOT_FOUND_MSG)
        return 200, self.shapes.comment(it, c)

    @route("PATCH", REPO + r"/issues/comments/(?P<cid>\d+)")
    def edit_comment(self, cid):
        user = self.need_user()
        it, c = self.sim.find_comment(int(cid))
        if c is None:
            raise HTTPError(404, NOT_FOUND_MSG)
        if c["user"] != user["login"] and not user.get("admin"):
            raise HTTPError(403, "user is not the poster")
        body = self.json_body()
        if not isinstance(body.get("body"), str):
            raise HTTPError(422, "body is required")
        c["body"] = body["body"]
        c["updated_at"] = now_iso()
        return 200, self.shapes.comment(it, c)

    @route("DELETE", REPO + r"/issues/comments/(?P<cid>\d+)")
    def delete_comment(self, cid):
        user = self.need_user()
        it, c = self.sim.find_comment(int(cid))
        if c is None:
            raise HTTPError(404, NOT_FOUND_MSG)
        if c["user"] != user["login"] and not user.get("admin"):
            raise HTTPError(403, "user is not the poster")
        it["comments"].remove(c)
        return 204, None

    # -- labels -----------------------------------------------------------

    # routers/api/v1/repo/label.go ListLabels: the repository's labels
    # only (issues_model.GetLabelsByRepoID); its organisation's are at
    # /orgs/{org}/labels.
    @route("GET", REPO + r"/labels")
    def list_labels(self):
        labs = sorted(self.sim.state["labels"], key=lambda x: x["name"])
        # routers/api/v1/repo/label.go ListLabels: the count, no Link.
        return 200, [self.shapes.label(x) for x in self.paginate(labs)]

    def label_ref(self, ref):
        """A label by id, or by name when ref is not a number."""
        if ref.isdigit():
            return self.sim.label_by_id(int(ref))
        return self.sim.label_by_name(ref)

    @route("GET", REPO + r"/labels/(?P<lid>[^/]+)")
    def get_label(self, lid):
        lab = self.label_ref(lid)
        if lab is None or lab not in self.sim.state["labels"]:
            raise HTTPError(404, NOT_FOUND_MSG)
        return 200, self.shapes.label(lab)

    @route("POST", REPO + r"/labels")
    def create_label(self):
        self.need_user()
        body = self.json_body()
        name = body.get("name")
        color = (body.get("color") or "").lstrip("#")
        if not isinstance(name, str) or not name:
            raise HTTPError(422, "name is required")
        if not re.fullmatch(r"[0-9a-fA-F]{6}|[0-9a-fA-F]{3}", color):
            raise HTTPError(422, "color is invalid")
        lid = max([0] + [x["id"] for x in self.sim.state["labels"]]) + 1
        lab = {"id": lid, "name": name, "color": color.lower(),
               "description": body.get("description", "")}
        self.sim.state["labels"].append(lab)
        return 201, self.shapes.label(lab)

    @route("GET", REPO + r"/issues/(?P<n>[^/]+)/labels")
    def list_issue_labels(self, n):
        return 200, self.shapes.item_labels(self.get_item(n))

    # routers/api/v1/repo/issue_label.go AddIssueLabels: 200 with the
    # issue's labels; ids the repository does not have are left out; a
    # label added is a timeline event (CommentTypeLabel) and moves
    # updated_at.
    @route("POST", REPO + r"/issues/(?P<n>[^/]+)/labels")
    def add_issue_labels(self, n):
        self.need_user()
        it = self.get_item(n)
        body = self.json_body()
        ids = body.get("labels")
        if not isinstance(ids, list):
            raise HTTPError(422, "labels must be a list")
        for lid in ids:
            lab = None
            if isinstance(lid, int) and not isinstance(lid, bool):
                lab = self.sim.label_by_id(lid)
            elif isinstance(lid, str):
                lab = self.sim.label_by_name(lid)
            if lab and lab["id"] not in [
                    x["id"] for x in map(self.sim.item_label, it["labels"])
                    if x]:
                first = self.sim.label_by_name(lab["name"])
                it["labels"].append(lab["name"] if first is lab
                                    else lab["id"])
                it["updated_at"] = now_iso()
        return 200, self.shapes.item_labels(it)

    # routers/api/v1/repo/issue_label.go DeleteIssueLabel: 204, also when
    # the issue does not carry it; a label the repository does not have
    # is 422; a removal moves updated_at (a CommentTypeLabel event).
    @route("DELETE", REPO + r"/issues/(?P<n>[^/]+)/labels/(?P<lid>[^/]+)")
    def delete_issue_label(self, n, lid):
        self.need_user()
        it = self.get_item(n)
        lab = self.label_ref(lid)
        if lab is None:
            raise HTTPError(422, "label does not exist")
        keep = [e for e in it["labels"]
                if (self.sim.item_label(e) or {}).get("id") != lab["id"]]
        if len(keep) != len(it["labels"]):
            it["labels"] = keep
            it["updated_at"] = now_iso()
        return 204, None

    # -- pulls ------------------------------------------------------------

    def get_pull(self, n):
        pr = self.sim.pull(self.parse_index(n))
        if pr is None:
            raise HTTPError(404, NOT_FOUND_MSG)
        return pr

    @route("GET", REPO + r"/pulls")
    def list_pulls(self):
        state = self.qget("state", "open") or "open"
        prs = [p for p in self.sim.state["pulls"]
               if state == "all" or p["state"] == state]
        # Both read "sort" here (routers/api/v1/repo/pull.go
        # ListPullRequests); newest first by default.
        prs = self.sort_items(prs, self.qget("sort", ""))
        return 200, [self.shapes.pull(p)
                     for p in self.paginate(prs, link=True)]

    @route("POST", REPO + r"/pulls")
    def create_pull(self):
        user = self.need_user()
        body = self.json_body()
        head = body.get("head") or ""
        base = body.get("base") or ""
        title = (body.get("title") or "").strip()
        if not head or not base or not title:
            raise HTTPError(422, "head, base and title are required")
        if ":" in head:
            head = head.split(":", 1)[1]
        sha = self.sim.branch_sha(head)
        if sha is None:
            if self.sim.git_dir:
                raise HTTPError(404, NOT_FOUND_MSG)
            sha = fake_sha("head-%s-%d" % (head, self.sim.next_number()))
            self.sim.state["branches"][head] = sha
        if self.sim.branch_sha(base) is None:
            raise HTTPError(404, NOT_FOUND_MSG)
        for p in self.sim.state["pulls"]:
            if p["state"] == "open" and p["head"]["ref"] == head and \
                    p["base"]["ref"] == base:
                raise HTTPError(409, "pull request already exists for these "
                                "targets [id: %d, issue_id: %d, head_repo_id:"
                                " 1, base_repo_id: 1, head_branch: %s, "
                                "base_branch: %s]" % (
                                    20000 + p["number"], 10000 + p["number"],
                                    head, base))
        ts = now_iso()
        names = []
        for lid in body.get("labels") or []:
            lab = self.sim.label_by_id(lid)
            if lab:
                names.append(lab["name"])
        pr = {"number": self.sim.next_number(), "title": title,
              "body": body.get("body") or "", "state": "open",
              "labels": names, "user": user["login"], "created_at": ts,
              "updated_at": ts, "closed_at": None, "comments": [],
              "head": {"ref": head, "sha": sha}, "base": {"ref": base}}
        self.sim.norm_pull(pr, self.sim.state)
        self.sim.state["pulls"].append(pr)
        return 201, self.shapes.pull(pr)

    @route("GET", REPO + r"/pulls/(?P<n>\d+)")
    def get_pull_ep(self, n):
        return 200, self.shapes.pull(self.get_pull(n))

    @route("PATCH", REPO + r"/pulls/(?P<n>\d+)")
    def edit_pull(self, n):
        self.need_user()
        pr = self.get_pull(n)
        body = self.json_body()
        if body.get("state") is not None and pr["merged"]:
            raise HTTPError(412, "cannot change state of this pull request, "
                            "it was already merged")
        self.apply_edit(pr, body)
        return 201, self.shapes.pull(pr)

    @route("GET", REPO + r"/pulls/(?P<n>\d+)\.diff")
    def get_pull_diff(self, n):
        return 200, None, pull_diff(self.get_pull(n)), \
            "text/plain; charset=utf-8"

    @route("GET", REPO + r"/pulls/(?P<n>\d+)/files")
    def get_pull_files(self, n):
        pr = self.get_pull(n)
        # The page first, then its objects: a list of 100 000 stays cheap.
        page = self.paginate(pr["files"], link=True)
        files = pull_files({"files": page})
        for f in files:
            f["html_url"] = "%s/src/commit/%s/%s" % (
                self.shapes.repo_html, pr["head"]["sha"], f["filename"])
            f["contents_url"] = "%s/contents/%s?ref=%s" % (
                self.shapes.repo_api, f["filename"], pr["head"]["sha"])
            f["raw_url"] = "%s/raw/commit/%s/%s" % (
                self.shapes.repo_html, pr["head"]["sha"], f["filename"])
        # routers/api/v1/repo/pull.go GetPullRequestFiles: Link too.
        return 200, files

    @route("GET", REPO + r"/pulls/(?P<n>\d+)/reviews")
    def list_reviews(self, n):
        pr = self.get_pull(n)
        revs = [self.shapes.review(pr, r) for r in pr["reviews"]
                if self.may_see(r)]
        # routers/api/v1/repo/pull_review.go ListPullReviews: the count,
        # no Link header.
        return 200, self.paginate(revs)

    def may_see(self, r):
        """Gitea shows a PENDING review only to its author and admins."""
        if r["state"] != "PENDING":
            return True
        return self.user is not None and (
            self.user["login"] == r["user"] or self.user.get("admin"))

    @route("GET", REPO + r"/pulls/(?P<n>\d+)/reviews/(?P<rid>\d+)")
    def get_review(self, n, rid):
        pr = self.get_pull(n)
        return 200, self.shapes.review(pr, self.find_review(pr, rid))

    def find_review(self, pr, rid):
        for r in pr["reviews"]:
            if r["id"] == int(rid) and self.may_see(r):
                return r
        raise HTTPError(404, NOT_FOUND_MSG)

    # routers/api/v1/repo/pull_review.go CreatePullReview: 200 (not 201);
    # preparePullReviewType: APPROVED and REQUEST_CHANGES of one's own PR
    # are 422, REQUEST_CHANGES needs a body, COMMENT a body or comments,
    # any other event makes a PENDING review.  A review is a timeline
    # event (CommentTypeReview) and moves the PR's updated_at.
    @route("POST", REPO + r"/pulls/(?P<n>\d+)/reviews")
    def create_review(self, n):
        user = self.need_user()
        pr = self.get_pull(n)
        body = self.json_body()
        event = body.get("event") or ""
        text = body.get("body") or ""
        if event == "APPROVED":
            if pr["user"] == user["login"]:
                raise HTTPError(422, "approve your own pull is not allowed")
            need_body = False
        elif event == "REQUEST_CHANGES":
            if pr["user"] == user["login"]:
                raise HTTPError(422, "reject your own pull is not allowed")
            need_body = True
        elif event == "COMMENT":
            need_body = False
            if not text.strip() and not body.get("comments"):
                raise HTTPError(422, "review event COMMENT requires a body "
                                "or a comment")
        else:
            event, need_body = "PENDING", False
        if need_body and not text.strip():
            raise HTTPError(422, "review event %s requires a body" % event)
        ts = now_iso()
        r = {"id": self.sim.next_review_id(), "user": user["login"],
             "state": event, "body": text,
             "commit_id": body.get("commit_id") or pr["head"]["sha"],
             "dismissed": False, "submitted_at": ts, "updated_at": ts}
        pr["reviews"].append(r)
        pr["updated_at"] = ts
        return 200, self.shapes.review(pr, r)

    @route("POST",
           REPO + r"/pulls/(?P<n>\d+)/reviews/(?P<rid>\d+)/dismissals")
    def dismiss_review(self, n, rid):
        return self.set_dismissed(n, rid, True)

    @route("POST",
           REPO + r"/pulls/(?P<n>\d+)/reviews/(?P<rid>\d+)/undismissals")
    def undismiss_review(self, n, rid):
        return self.set_dismissed(n, rid, False)

    def set_dismissed(self, n, rid, dismissed):
        user = self.need_user()
        if not user.get("admin"):
            raise HTTPError(403, "Must be repo admin")
        pr = self.get_pull(n)
        r = self.find_review(pr, rid)
        if r["state"] not in ("APPROVED", "REQUEST_CHANGES"):
            raise HTTPError(403, "not allowed to dismiss this review")
        if pr["state"] == "closed":
            raise HTTPError(403, "not allowed to dismiss a review of a "
                            "closed pull request")
        r["dismissed"] = dismissed
        if dismissed:
            r["dismiss_message"] = self.json_body().get("message", "")
            # Gitea adds a "dismissed review" event to the timeline, which
            # moves the PR's updated_at; an undismissal adds none.
            pr["updated_at"] = now_iso()
        r["updated_at"] = now_iso()
        return 200, self.shapes.review(pr, r)

    @route("GET", REPO + r"/pulls/(?P<n>\d+)/merge")
    def is_merged(self, n):
        pr = self.get_pull(n)
        if pr["merged"]:
            return 204, None
        raise HTTPError(404, NOT_FOUND_MSG)

    # routers/api/v1/repo/pull.go MergePullRequest, services/pull/
    # check.go CheckPullMergeable: Do outside the merge styles is 422
    # (form binding), merged already 405, closed 404, work in progress or
    # not mergeable 405, a head_commit_id that is not the head 409, 200
    # with no body once merged; the branch deletion comes after.  A
    # user outside the merge whitelist of the base branch's protection is
    # 405 (services/pull/merge.go IsUserAllowedToMerge: with
    # EnableMergeWhitelist only the whitelisted users may merge;
    # routers/api/v1/repo/pull.go answers ErrNotAllowedToMerge with 405
    # "User not allowed to merge PR").
    @route("POST", REPO + r"/pulls/(?P<n>\d+)/merge")
    def merge_pull(self, n):
        user = self.need_user()
        pr = self.get_pull(n)
        body = self.json_body()
        do = body.get("Do")
        if do not in MERGE_STYLES:
            raise HTTPError(422, "Do: must be one of %s" % ", ".join(
                MERGE_STYLES))
        for rule in self.sim.state["branch_protections"]:
            name = rule.get("rule_name", rule.get("branch_name", ""))
            if name == pr["base"]["ref"] and \
                    rule.get("enable_merge_whitelist") and \
                    user["login"] not in rule.get(
                        "merge_whitelist_usernames", []):
                raise HTTPError(405, "User not allowed to merge PR")
        if pr["merged"]:
            raise HTTPError(405, "")
        if pr["state"] == "closed":
            raise HTTPError(404, NOT_FOUND_MSG)
        if self.sim.is_wip(pr):
            raise HTTPError(405, "Work in progress PRs cannot be merged")
        # CanAutoMerge is false while checking and with a conflict alike
        # (ErrNotMergeableState): one answer for both.
        with self.sim.lock:
            checking = pr.get("checking", 0) > 0
        if not pr["mergeable"] or checking:
            raise HTTPError(405, "Please try again later")
        refusal = self.sim.protection_refusal(pr)
        if refusal:
            raise HTTPError(405, refusal)
        want = body.get("head_commit_id") or ""
        if want and want != pr["head"]["sha"]:
            raise HTTPError(409, "head out of date")
        # A conflict found only by the merge itself (ErrMergeConflicts,
        # answered 409 with the error as JSON) or a push the hooks
        # refuse (git.ErrPushRejected: 409 "PushRejected with remote
        # message: ..."): the scenario's "merge_conflict" or
        # "push_rejected" (the hook's message).
        if pr.get("merge_conflict"):
            raise HTTPError(409, "merge conflict")
        if pr.get("push_rejected"):
            raise HTTPError(409, "PushRejected with remote message: " +
                            str(pr["push_rejected"]))
        ts = now_iso()
        pr["merged"] = True
        pr["merged_at"] = ts
        pr["merged_by"] = user["login"]
        pr["merge_commit_sha"] = fake_sha("merge-%d-%s" % (
            pr["number"], pr["head"]["sha"]))
        pr["state"] = "closed"
        pr["closed_at"] = ts
        pr["updated_at"] = ts
        self.sim.start_checks(pr)
        if body.get("delete_branch_after_merge"):
            failed = self.delete_merged_branch(pr)
            if failed:
                raise HTTPError(failed, {
                    403: "branch protected", 404: "branch does not exist "
                    "[name: %s]" % pr["head"]["ref"]}.get(failed, "DeleteBranch"))
        return 200, None

    def delete_merged_branch(self, pr):
        """The branch deletion a merge asked for, after the merge is done
        (routers/api/v1/repo/pull.go MergePullRequest): none while
        another open PR uses the branch (200); a deletion that fails is
        answered as its own error although the PR stays merged: 404 when
        the branch does not exist, 403 when it is the default or a
        protected branch, 500 otherwise.  The scenario's PR field
        "branch_delete_status" (403, 404 or 500) makes it fail so.
        Returns that status, or None."""
        ref = pr["head"]["ref"]
        for p in self.sim.state["pulls"]:
            if p["state"] == "open" and p["head"]["ref"] == ref:
                return None
        failed = pr.get("branch_delete_status")
        if failed in (403, 500):
            return failed
        self.sim.state["branches"].pop(ref, None)
        if self.sim.git_dir:
            self.sim.git("update-ref", "-d", "refs/heads/" + ref)
            self.sim.git_forget()
        return failed

    # -- statuses & branches ----------------------------------------------

    @route("GET", REPO + r"/commits/(?P<sha>[^/]+)/status")
    def combined_status(self, sha):
        sha = self.sim.branch_sha(sha) or sha
        res = self.shapes.combined(sha, self.paginate)
        if not res["total_count"]:
            self.extra_headers.pop("X-Total-Count", None)
        return 200, res

    @route("GET", REPO + r"/commits/(?P<sha>[^/]+)/statuses")
    def list_statuses(self, sha):
        sha = self.sim.branch_sha(sha) or sha
        ent = self.sim.state["statuses"].get(sha) or {}
        sts = ent.get("statuses") or self.sim.sha_statuses(sha)
        out = [self.shapes.status(sha, s, i) for i, s in enumerate(sts)]
        out.reverse()
        return 200, self.paginate(out, link=True)

    @route("POST", REPO + r"/statuses/(?P<sha>[^/]+)")
    def create_status(self, sha):
        user = self.need_user()
        body = self.json_body()
        state = body.get("state")
        if state not in STATUS_RANK:
            raise HTTPError(422, "invalid state")
        s = self.sim_set_status(sha, state, body.get("context", ""),
                                body.get("target_url", ""),
                                body.get("description", ""), user["login"])
        ent = self.sim.state["statuses"][sha]
        return 201, self.shapes.status(sha, s, len(ent["statuses"]) - 1)

    def sim_set_status(self, sha, state, context, url, desc, creator):
        ent = self.sim.state["statuses"].setdefault(sha, {})
        ent["statuses"] = list(self.sim.sha_statuses(sha))
        ent.pop("state", None)
        ts = now_iso()
        s = {"status": state, "context": context or "default",
             "target_url": url or "", "description": desc or "",
             "creator": creator, "created_at": ts, "updated_at": ts}
        ent["statuses"].append(s)
        return s

    @route("GET", REPO + r"/branches/(?P<b>.+)")
    def get_branch(self, b):
        sha = self.sim.branch_sha(b)
        if sha is None:
            raise HTTPError(404, "branch does not exist [name: %s]" % b)
        return 200, self.shapes.branch(b, sha)

    @route("DELETE", REPO + r"/branches/(?P<b>.+)")
    def delete_branch(self, b):
        self.need_user()
        if b == self.sim.state["default_branch"]:
            raise HTTPError(403, "can not delete default branch")
        if self.sim.branch_sha(b) is None:
            raise HTTPError(404, "branch does not exist [name: %s]" % b)
        self.sim.state["branches"].pop(b, None)
        if self.sim.git_dir:
            self.sim.git("update-ref", "-d", "refs/heads/" + b)
            self.sim.git_forget()
        return 204, None

    # =====================================================================
    # Woodpecker endpoints
    # =====================================================================

    def wp_repo(self, rid):
        wp = self.sim.state["woodpecker"]
        if str(wp["repo_id"]) != rid:
            raise HTTPError(404, "repo not found")
        return wp

    def wp_find(self, wp, number):
        for p in wp["pipelines"]:
            if str(p["number"]) == number:
                return p
        raise HTTPError(404, "pipeline not found")

    @route("GET", r"/api/user")
    def wp_user(self):
        # Woodpecker server/router/api.go (2.x and 3.x): GET /api/user is
        # api.GetSelf behind session.MustUser(), the token's user as
        # server/model/user.go shapes it.
        wp = self.sim.state["woodpecker"]
        return 200, {"id": 1, "forge_id": 1, "login": wp["user"],
                     "email": "", "avatar_url": "", "admin": False,
                     "org_id": 1}

    @route("GET", r"/api/repos/(?P<rid>\d+)")
    def wp_get_repo(self, rid):
        # Woodpecker server/router/api.go: GET /api/repos/:repo_id is
        # api.GetRepo behind session.SetRepo() (404 for an unknown id)
        # and session.MustPull; server/model/repo.go's fields.
        wp = self.wp_repo(rid)
        full = wp.get("full_name", self.sim.state["repo"])
        return 200, {"id": wp["repo_id"], "forge_id": 1,
                     "forge_remote_id": "1", "org_id": 1,
                     "owner": full.split("/")[0],
                     "name": full.split("/")[-1], "full_name": full,
                     "active": True, "private": False,
                     "default_branch": self.sim.state["default_branch"]}

    @route("GET", r"/api/repos/(?P<rid>\d+)/pipelines")
    def wp_list(self, rid):
        wp = self.wp_repo(rid)
        ps = sorted(wp["pipelines"], key=lambda p: p["number"], reverse=True)
        return 200, [wp_pipeline(p, self.sim.wp_version, False)
                     for p in self.wp_paginate(ps)]

    @route("GET", r"/api/repos/(?P<rid>\d+)/pipelines/(?P<num>\d+)")
    def wp_get(self, rid, num):
        wp = self.wp_repo(rid)
        return 200, wp_pipeline(self.wp_find(wp, num), self.sim.wp_version)

    @route("POST", r"/api/repos/(?P<rid>\d+)/pipelines/(?P<num>\d+)")
    def wp_restart(self, rid, num):
        wp = self.wp_repo(rid)
        old = self.wp_find(wp, num)
        if old["status"] in ("blocked", "declined"):
            raise HTTPError(400, "cannot restart a pipeline with status %s"
                            % old["status"])
        new = copy.deepcopy(old)
        new["number"] = max(p["number"] for p in wp["pipelines"]) + 1
        new["parent"] = old["number"]
        new["status"] = "pending"
        new["created"] = int(time.time())
        new["started"] = new["finished"] = 0
        for wi, w in enumerate(new["workflows"]):
            w["id"] = new["number"] * 100 + wi
            w["state"] = "pending"
            for ci, c in enumerate(w.get("children", [])):
                c["id"] = new["number"] * 100 + 10 + ci
                c["state"] = "pending"
                c["exit_code"] = 0
        wp["pipelines"].append(new)
        return 200, wp_pipeline(new, self.sim.wp_version)

    @route("GET", r"/api/repos/(?P<rid>\d+)/logs/(?P<num>\d+)/(?P<sid>\d+)")
    def wp_logs(self, rid, num, sid):
        wp = self.wp_repo(rid)
        p = self.wp_find(wp, num)
        if int(sid) not in list(step_ids(p)):
            # server/api/pipeline.go GetStepLogs: a step id Woodpecker
            # does not know is 404; one of another pipeline is 400 on 2.x
            # (and 3.x before 3.14: "step with id N is not part of repo"),
            # 404 since 3.14 (the step is looked up within the pipeline).
            known = [i for q in wp["pipelines"] for i in step_ids(q)]
            if self.sim.wp_version == "2" and int(sid) in known:
                raise HTTPError(400, "step with id %s is not part of repo "
                                "%s" % (sid, self.sim.state["repo"]))
            raise HTTPError(404, "step not found")
        lines = wp["logs"].get("%s/%s" % (num, sid), [])
        out = []
        for i, line in enumerate(lines):
            out.append({"id": int(sid) * 1000 + i, "step_id": int(sid),
                        "time": i, "line": i,
                        # "\udcNN" in a scenario is the raw byte NN
                        # (invalid UTF-8 in a log, as real logs have).
                        "data": base64.b64encode(line.encode(
                            "utf-8", "surrogateescape")).decode(),
                        "type": 0})
        return 200, out

    # =====================================================================
    # Admin endpoints (no auth, not logged)
    # =====================================================================

    @route("GET", r"/_admin/state")
    def admin_state(self):
        return 200, self.sim.state

    @route("GET", r"/_admin/dialect")
    def admin_dialect(self):
        """Which servers the simulator answers as."""
        return 200, {"dialect": self.sim.dialect,
                     "woodpecker": self.sim.wp_version,
                     "page_cap": self.sim.page_cap}

    @route("GET", r"/_admin/log")
    def admin_log(self):
        return 200, self.sim.log

    @route("POST", r"/_admin/log/reset")
    def admin_log_reset(self):
        self.sim.log = []
        self.sim.seq = 0
        return 200, {"ok": True}

    @route("POST", r"/_admin/fault")
    def admin_fault(self):
        body = self.json_body()
        mode = str(body.get("mode", ""))
        if mode not in ("500", "delay", "truncate", "badjson", "wrongtype",
                        "404", "409", "502once", "hang", "stall",
                        "nothttp"):
            raise HTTPError(422, "unknown fault mode")
        try:
            re.compile(body.get("path", ""))
        except re.error:
            raise HTTPError(422, "bad path regex")
        count = int(body.get("count", 1))
        f = {"method": body.get("method", "*"), "path": body.get("path", ""),
             "mode": mode, "count": count, "left": count,
             "delay": float(body.get("delay", 5)), "seen": set()}
        for key in ("field", "item", "value", "remove", "message"):
            if key in body:
                f[key] = body[key]
        self.sim.faults.append(f)
        return 200, {k: v for k, v in f.items() if k != "seen"}

    @route("POST", r"/_admin/reset")
    def admin_reset(self):
        """The state of the scenario the simulator started with (or of the
        last checkpoint), an empty log (seq restarts at 1) and no fault."""
        self.sim.state = self.sim.normalise(self.sim.scenario)
        self.sim.log = []
        self.sim.seq = 0
        self.sim.faults = []
        return 200, {"ok": True}

    @route("POST", r"/_admin/checkpoint")
    def admin_checkpoint(self):
        """The state now is what later resets go back to."""
        self.sim.scenario = copy.deepcopy(self.sim.state)
        return 200, {"ok": True}

    @route("POST", r"/_admin/faults/clear")
    def admin_faults_clear(self):
        self.sim.faults = []
        return 200, {"ok": True}

    @route("POST", r"/_admin/set")
    def admin_set(self):
        body = self.json_body()
        self.sim.state = self.sim.normalise(merge_patch(self.sim.state, body))
        return 200, self.sim.state

    @route("POST", r"/_admin/item")
    def admin_item(self):
        """Merge-patches one issue or pull: {"number": N, ...fields}."""
        body = dict(self.json_body())
        it = self.sim.item(int(body.pop("number", 0)))
        if it is None:
            raise HTTPError(404, NOT_FOUND_MSG)
        # New reviews are timeline events: they move updated_at, as on
        # the forge, unless the patch sets it.
        if "reviews" in body and "updated_at" not in body:
            body["updated_at"] = now_iso()
        merge_patch(it, body)
        self.sim.state = self.sim.normalise(self.sim.state)
        return 200, self.sim.item(it["number"])

    @route("POST", r"/_admin/comment")
    def admin_comment(self):
        body = self.json_body()
        it = self.sim.item(int(body.get("issue", 0)))
        if it is None:
            raise HTTPError(404, NOT_FOUND_MSG)
        c = self.sim_add_comment(it, body.get("user", "human"),
                                 body.get("body", ""))
        return 201, self.shapes.comment(it, c)

    @route("POST", r"/_admin/status")
    def admin_status(self):
        body = self.json_body()
        if body.get("state") not in STATUS_RANK or not body.get("sha"):
            raise HTTPError(422, "sha and a valid state are required")
        self.sim_set_status(body["sha"], body["state"],
                            body.get("context", "ci/woodpecker/pr/woodpecker"),
                            body.get("target_url", ""), "", "woodpecker")
        return 200, self.shapes.combined(body["sha"])

    @route("POST", r"/_admin/push")
    def admin_push(self):
        body = self.json_body()
        branch, sha = body.get("branch"), body.get("sha")
        if not branch or not sha:
            raise HTTPError(422, "branch and sha are required")
        self.sim.state["branches"][branch] = sha
        moved = []
        for p in self.sim.state["pulls"]:
            if p["state"] == "open" and p["head"]["ref"] == branch:
                p["head"]["sha"] = sha
                p["updated_at"] = now_iso()
                moved.append(p["number"])
        return 200, {"branch": branch, "sha": sha, "pulls": moved}

    @route("POST", r"/_admin/pipeline")
    def admin_pipeline(self):
        """Creates (or, with "number", updates) a pipeline: CI finishing.
        Steps: [{"name","state","exit_code","log":[lines]}].  Unless
        "forge_status" is false, also posts the matching commit status."""
        body = self.json_body()
        wp = self.sim.state["woodpecker"]
        status = body.get("status", "success")
        now = int(time.time())
        if body.get("number") is not None:
            p = self.wp_find(wp, str(body["number"]))
        else:
            num = max([0] + [x["number"] for x in wp["pipelines"]]) + 1
            p = {"number": num, "created": now}
            wp["pipelines"].append(p)
        for k in ("commit", "branch", "event"):
            if body.get(k) is not None:
                p[k] = body[k]
        self.sim.norm_pipeline(p)
        p["status"] = status
        if status not in ("pending",):
            p["started"] = p["started"] or now
        if status not in ("pending", "running"):
            p["finished"] = now
        if "steps" in body:
            self.build_steps(wp, p, body["steps"])
        if body.get("forge_status", True) and p["commit"]:
            # What Woodpecker reports to the forge (server/forge/gitea/
            # helper.go getStatus at v2.8.3, gitea.go at 3.x): pending
            # while pending, blocked or running, warning when declined,
            # error on error, success, and failure for anything else
            # (failure, killed, canceled, skipped, created).
            fstate = {"success": "success", "error": "error",
                      "running": "pending", "pending": "pending",
                      "blocked": "pending",
                      "declined": "warning"}.get(status, "failure")
            self.sim_set_status(
                p["commit"], fstate, "ci/woodpecker/pr/woodpecker",
                "%s/repos/%s/pipeline/%d" % (self.base, wp["repo_id"],
                                            p["number"]), "", "woodpecker")
        return 200, wp_pipeline(p, self.sim.wp_version)

    def build_steps(self, wp, p, steps):
        wf = {"id": p["number"] * 100, "pid": 1, "name": "woodpecker",
              "state": p["status"], "children": []}
        for i, s in enumerate(steps):
            sid = s.get("id", p["number"] * 100 + 10 + i)
            wf["children"].append({
                "id": sid, "pid": s.get("pid", i + 2),
                "name": s.get("name", "step%d" % i),
                "state": s.get("state", "success"),
                "exit_code": s.get("exit_code", 0)})
            if "log" in s:
                wp["logs"]["%d/%d" % (p["number"], sid)] = list(s["log"])
        p["workflows"] = [wf]


# ---------------------------------------------------------------------------

def write_port_file(path, port):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w", encoding="ascii") as f:
        f.write("%d\n" % port)
    os.rename(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log")
    ap.add_argument("--git-dir")
    ap.add_argument("--dialect", choices=("gitea", "gitea-1.23", "forgejo"),
                    default="gitea")
    ap.add_argument("--woodpecker", choices=("2", "3"), default="3")
    ap.add_argument("--page-cap", type=int, default=MAX_LIMIT)
    args = ap.parse_args()
    if args.page_cap < 1:
        ap.error("--page-cap must be at least 1")
    with open(args.scenario, encoding="utf-8") as f:
        scenario = json.load(f)
    git_dir = os.path.abspath(args.git_dir) if args.git_dir else None
    Handler.sim = Sim(scenario, git_dir, args.log, args.dialect,
                      args.woodpecker, args.page_cap)

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        allow_reuse_address = True
        # Clients that open several connections at once (parallel reads)
        # must not overflow the listen queue (5 by default): a dropped
        # SYN costs its client a second.
        request_queue_size = 64

    srv = Server(("127.0.0.1", 0), Handler)

    def stop(signum, frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    write_port_file(args.port_file, srv.server_address[1])
    try:
        srv.serve_forever(poll_interval=0.2)
    except SystemExit:
        pass
    finally:
        srv.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
