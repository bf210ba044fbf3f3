/*-------------------------------------------------------------------------
 *
 * cache.h
 *		The cache part: where a relation's pages are (shared buffers, the
 *		operating system's page cache; cache.c), make_cold and warm, and
 *		what fits in shared buffers (cache_evict.c).  Snapshots are SQL (cache_snapshot()).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_CACHE_H
#define PGBL_CACHE_H

#include "postgres.h"

#include "storage/lockdefs.h"
#include "utils/relcache.h"

/*
 * One relation as the cache part sees it: its file identity (the key that
 * buffer tags are matched against), its size, and what a scan counted.
 */
typedef struct CacheRelKey
{
	Oid			spcoid;
	Oid			dboid;
	Oid			filenumber;
} CacheRelKey;

typedef struct CacheRel
{
	CacheRelKey key;
	Oid			relid;
	const char *kind;			/* "table", "index", "toast table", ... */
	int64		blocks;			/* all forks */
	int64		buffers;		/* valid shared buffers holding its pages */
	int64		dirty;
	int64		usage_sum;
	int64		os_pages;		/* resident OS pages of its files */
} CacheRel;

/* cache.c */
extern void CacheCheckSelect(Oid relid);
extern List *CacheTargetRelids(Oid relid, bool include_indexes, LOCKMODE lockmode);
extern void CacheDescribe(Relation rel, CacheRel *out);
extern void CacheCountBuffers(CacheRel *rels, int nrels);
extern int64 CacheOsPages(Relation rel, bool drop, int64 *after);

/* cache_evict.c: what a warm may load into shared buffers, in blocks */
extern int64 CacheWarmMargin(void);
extern int64 CacheWarmBudget(void);

#endif							/* PGBL_CACHE_H */
