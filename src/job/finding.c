/*-------------------------------------------------------------------------
 * finding.c
 *		A finding of the preflight check (preflight.c): adding one to a
 *		check run, and the byte counts findings and hints spell.
 *
 * A finding is one row of petagen.check(): a severity, the object it is
 * about, what was found ("topic: ...") and what to do; for an error, the
 * errcode start() raises when it refuses on it.  Everything is allocated
 * in the caller's memory context.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/builtins.h"

#include "job/finding.h"

/* Add a finding; finding is printf-style, object and hint are kept as given. */
void
check_add(CheckCtx *ctx, CheckSeverity severity, int sqlstate,
		  const char *object, const char *hint, const char *fmt,...)
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
	f->finding = buf.data;
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
