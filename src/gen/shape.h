/*-------------------------------------------------------------------------
 * shape.h
 *		A YCSB-shaped row type: ycsb_key (text, varchar, int or bigint)
 *		plus field0 .. fieldN-1 (YCSB's numbering) or field1 .. fieldN
 *		(BenchBase's).
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_SHAPE_H
#define PETAGEN_SHAPE_H

#include "access/tupdesc.h"

#include "gen/keys.h"

/* Where a YCSB-shaped row keeps its key and fields, and how long they may be. */
typedef struct RowShape
{
	int			natts;			/* attributes of the row, dropped included */
	int			key_att;		/* 0-based attribute index of ycsb_key */
	int			nfields;		/* N fields */
	int			field_base;		/* the first field's number: 0 or 1 */
	int		   *field_att;		/* field i (named field<base+i>) -> 0-based
								 * attribute index */
	KeyKind		key_kind;		/* text, or an integer key */
	int32		key_maxchars;	/* varchar(n) limit of the key, or -1 */
	int32		field_maxchars; /* smallest varchar(n) limit of a field, or -1 */
	int			nextra;			/* other columns, filled as INSERT would */
	int		   *extra_att;		/* their 0-based attribute indexes */
} RowShape;

extern void shape_from_tupdesc(TupleDesc tupdesc, const char *name,
							   RowShape *shape);
extern KeyKind shape_key_kind(Oid relid);

#endif							/* PETAGEN_SHAPE_H */
