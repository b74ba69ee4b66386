/*
 * The forge webhook receiver: `TOOL --webhook`, one short-lived process
 * per delivery, its standard input and output the connection (a systemd
 * socket with Accept=yes, or inetd).  It reads one HTTP/1.1 POST
 * (headers of WEBHOOK_HEAD_MAX bytes at most, a body of WEBHOOK_BODY_MAX,
 * all within WEBHOOK_TIMEOUT seconds), finds the project whose forge
 * repository the delivery names ($FACTORY_ROOT/projects/ *.toml), checks the
 * Gitea/Forgejo signature (X-Gitea-Signature or X-Forgejo-Signature: the hex
 * HMAC-SHA256 of the JSON payload keyed with WEBHOOK_SECRET, which a
 * form-encoded delivery carries in its "payload" field;
 * services/webhook/deliver.go), ignores a delivery taken in the last hour
 * (common/run/delivery.h), and wakes the tools the event concerns (`TOOL
 * --wake PROJECT_TOML "webhook EVENT"`, detached):
 *
 *   status                          dev-poll and review-poll; the SHA is
 *                                   marked in ci-changed-P for the CI
 *                                   memo first
 *   pull_request_review_approved,
 *   _rejected, _comment             dev-poll
 *   pull_request, action closed     dev-poll
 *   issue_comment on an issue       dev-poll and supervisor-poll
 *
 * It answers 204 (done, or nothing to do: another event, a delivery taken
 * already), 400 (not a request it can read), 401 (no secret set or only
 * blanks, a signature that is missing or wrong, and with the same answer a
 * repository of no project), 405 (not a POST), 413 (a body too long),
 * 500 (a tool could not be woken: said in the journal and in that tool's
 * log, and the forge lists the delivery as failed; the tool's next
 * scheduled tick still sees the event).  Each refusal is logged with its
 * cause.  The tools are found by the running executable's place: beside
 * it, in its build tree, or in the factory beside their scripts (make
 * install-factory; tools_path(), tools.h).  Nothing of it runs between
 * deliveries.
 */
#ifndef WEBHOOK_H
#define WEBHOOK_H

#define WEBHOOK_MODE "--webhook"
#define WEBHOOK_HEAD_MAX 16384
#define WEBHOOK_BODY_MAX (1024 * 1024)
#define WEBHOOK_TIMEOUT 10

/*
 * Serve one delivery read from in and answered on out (descriptors);
 * exe is argv[0] (used when the running executable's path cannot be
 * told; a tool found nowhere is looked for on PATH).
 * Returns the exit status: 0 when it answered 2xx, 1 otherwise.
 */
int webhook_main(const char *exe, int in, int out);

#endif
