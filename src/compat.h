/*-------------------------------------------------------------------------
 * compat.h
 *		Every PG_VERSION_NUM difference petagen cares about, in one place.
 *
 * petagen is developed on PostgreSQL 15 and must build on 16 and 17.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_COMPAT_H
#define PETAGEN_COMPAT_H

#if PG_VERSION_NUM < 150000
#error "petagen requires PostgreSQL 15 or later"
#endif

#endif							/* PETAGEN_COMPAT_H */
