/*-------------------------------------------------------------------------
 * finding.c
 *		A finding of the preflight check (preflight.c): adding one to a
 *		check run, and the byte counts findings and hints spell.
 *
 * A finding is one row of petagen.check(): a severity, the object it is
 * about, what was found ("topic: ...") and what to do; for an error, the
 * errcode start() raises when it refuses on it.  What was found is said
 * twice: in full (the detail petagen.check_details() shows and start()'s
 * refusal quotes), and in at most CHECK_FINDING_MAX characters for
 * petagen.check(), which a psql screen shows without wrapping.  Everything
 * is allocated in the caller's memory context.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"

#include "job/finding.h"

/*
 * The finding check() shows for detail: detail itself when it is short
 * enough, else summary; either cut to CHECK_FINDING_MAX characters ending
 * in "..." if it is longer (a name or an error message can be).
 */
static char *
check_short(const char *detail, const char *summary)
{
	const char *text = detail;
	int			len = strlen(detail);

	if (pg_mbstrlen_with_len(detail, len) > CHECK_FINDING_MAX && summary)
	{
		text = summary;
		len = strlen(summary);
	}
	if (pg_mbstrlen_with_len(text, len) <= CHECK_FINDING_MAX)
		return pstrdup(text);
	return psprintf("%.*s...",
					pg_mbcharcliplen(text, len, CHECK_FINDING_MAX - 3), text);
}

/*
 * Add a finding: fmt (printf-style) says it in full, summary (or NULL) in
 * at most CHECK_FINDING_MAX characters; object and hint are kept as given.
 */
void
check_add(CheckCtx *ctx, CheckSeverity severity, int sqlstate,
		  const char *object, const char *summary, const char *hint,
		  const char *fmt,...)
{
	CheckFinding *f = palloc(sizeof(CheckFinding));
	StringInfoData buf;

	initStringInfo(&buf);
	for (;;)
	{
		va_list		args;
		int			needed;

		va_start(args, fmt);
		needed = appendStringInfoVA(&buf, fmt, args);
		va_end(args);
		if (needed == 0)
			break;
		enlargeStringInfo(&buf, needed);
	}
	f->severity = severity;
	f->sqlstate = sqlstate;
	f->object = pstrdup(object);
	f->detail = buf.data;
	f->finding = check_short(buf.data, summary);
	f->hint = hint ? pstrdup(hint) : NULL;
	ctx->findings = lappend(ctx->findings, f);
}

/* A byte count as pg_size_pretty() spells it. */
char *
check_size(double bytes)
{
	int64		b = bytes >= (double) PG_INT64_MAX ? PG_INT64_MAX : (int64) bytes;

	return text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty,
															  Int64GetDatum(b))));
}
