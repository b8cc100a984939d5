/*-------------------------------------------------------------------------
 * method.h
 *		The load method of a job: start()'s and check()'s method argument
 *		('auto', 'chunk' or 'leaf') and what 'auto' resolves to, and why.
 *		See method.c.
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

extern JobMethod method_option(const char *value);
extern void method_resolve(JobDef *def, JobMethod method, int64 chunk_rows);

#endif							/* PETAGEN_METHOD_H */
