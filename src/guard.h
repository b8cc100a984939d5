/*-------------------------------------------------------------------------
 * guard.h
 *		Checks every SQL entry point shares on the context it is called in
 *		and on the table it is given.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_GUARD_H
#define PETAGEN_GUARD_H

extern void guard_writable(const char *funcname);
extern void guard_table(Oid relid);
extern Oid	guard_table_name(text *name);

#endif							/* PETAGEN_GUARD_H */
