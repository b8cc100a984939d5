/*-------------------------------------------------------------------------
 * defaults.h
 *		The values INSERT would give a leaf's other columns: their
 *		defaults, identities and stored generated expressions.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_DEFAULTS_H
#define PETAGEN_DEFAULTS_H

#include "nodes/execnodes.h"
#include "utils/relcache.h"

#include "gen/shape.h"

typedef struct RowDefaults RowDefaults;

extern RowDefaults *defaults_init(Relation rel, const RowShape *shape,
								  EState *estate);
extern void defaults_fill(RowDefaults *d, Datum *values, bool *nulls);

#endif							/* PETAGEN_DEFAULTS_H */
