/*-------------------------------------------------------------------------
 * leafpages.h
 *		The direct writer of a leaf load: frozen heap pages built in backend
 *		memory and handed to storage in bulk, with the visibility map.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_LEAFPAGES_H
#define PETAGEN_LEAFPAGES_H

#include "access/htup.h"
#include "utils/relcache.h"

typedef struct LeafPages LeafPages;

extern LeafPages *leafpages_begin(Relation rel);
extern void leafpages_add(LeafPages *lp, HeapTuple tuple);
extern void leafpages_finish(LeafPages *lp);

#endif							/* PETAGEN_LEAFPAGES_H */
