/*-------------------------------------------------------------------------
 * method.h
 *		The load method of a job: start()'s and check()'s method argument
 *		('auto', 'chunk' or 'leaf') and what 'auto' resolves to, and why;
 *		the job as its method (loadmethod.h) sees it.  See method.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_METHOD_H
#define PETAGEN_METHOD_H

#include "job/jobdef.h"

/* The method argument of start() and check(). */
typedef enum JobMethod
{
	METHOD_AUTO,
	METHOD_CHUNK,
	METHOD_LEAF
} JobMethod;

/* A leaf job's routing files against the data directory's room for them. */
typedef struct RoutingRoom
{
	double		bytes;			/* the files' bytes */
	double		room;			/* free bytes above the disk reserve */
	int64		files;			/* one per range of chunk_rows keys */
	int64		inodes;			/* free inodes, or -1: no limit */
} RoutingRoom;

extern JobMethod method_option(const char *value);
extern void method_routing_room(const JobDef *def, int nlocal, RoutingRoom *r);
extern bool method_routing_fits(const RoutingRoom *r);
extern void method_resolve(JobDef *def, JobMethod method, int64 chunk_rows);
extern void method_load_job(const JobDef *def, LoadJob *job);

#endif							/* PETAGEN_METHOD_H */
