/*-------------------------------------------------------------------------
 * spec.h
 *		What to generate: key spelling, seed and field length, validated
 *		against a table's shape and a range of key numbers.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_SPEC_H
#define PETAGEN_SPEC_H

#include "fmgr.h"
#include "utils/numeric.h"

#include "keys.h"
#include "shape.h"

/* Longest field petagen generates, in bytes. */
#define SPEC_MAX_FIELDLENGTH (1024 * 1024)

/* Everything rows depend on besides the key number: a pure function of this. */
typedef struct GenSpec
{
	KeySpec		keys;
	uint64		seed;
	int			fieldlength;
} GenSpec;

extern void spec_init(GenSpec *spec, const char *mode, const char *prefix,
					  int zeropadding, int64 seed, int fieldlength);
extern void spec_check_shape(const GenSpec *spec, const RowShape *shape,
							 int64 last_seq, const char *name);
extern int64 spec_count_arg(Numeric value, const char *argname);
extern void spec_check_range(int64 first, int64 count);
extern void spec_check_nulls(FunctionCallInfo fcinfo, int from,
							 const char *const *argnames, int nargs,
							 const char *funcname);

#endif							/* PETAGEN_SPEC_H */
