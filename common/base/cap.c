/*
 * Capped prompt text, the cut said in it (see cap.h).
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cap.h"
#include "utf8.h"

void
cap_append(struct buf *b, const char *s, size_t max)
{
	size_t len = s != NULL ? strlen(s) : 0, keep;

	if (s == NULL)
		return;
	keep = utf8_prefix_len(s, len, max);
	buf_append(b, s, keep);
	if (keep < len)
		buf_printf(b, "\n[... cut: %zu more bytes]\n", len - keep);
}

char *
cap_head(const char *s, size_t max)
{
	struct buf b;

	buf_init(&b, 0);
	buf_append(&b, "", 0);
	cap_append(&b, s, max);
	return buf_steal(&b);
}

char *
cap_tail(const char *s, size_t max)
{
	size_t len = s != NULL ? strlen(s) : 0, at;
	struct buf b;

	buf_init(&b, 0);
	buf_append(&b, "", 0);
	at = utf8_suffix_start(s != NULL ? s : "", len, max);
	if (at > 0)
		buf_printf(&b, "[... cut: %zu earlier bytes]\n", at);
	buf_append(&b, s != NULL ? s + at : "", len - at);
	return buf_steal(&b);
}
