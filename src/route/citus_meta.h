/*-------------------------------------------------------------------------
 * citus_meta.h
 *		What petagen reads of Citus's metadata on a Citus node.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_CITUS_META_H
#define PETAGEN_CITUS_META_H

#include "utils/relcache.h"

extern void citus_meta_refuse(Relation rel);

#endif							/* PETAGEN_CITUS_META_H */
