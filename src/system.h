/*-------------------------------------------------------------------------
 *
 * system.h
 *		What the server can see of the machine it runs on.
 *
 * SystemCollect() gathers every fact once; system_info() shows them as rows
 * and the recommender reads the struct.  A fact that cannot be read is
 * marked unavailable (its *_source says "unavailable"), never an error.
 *
 * Every *_source string says where the value came from ("/proc/meminfo
 * MemTotal", "cgroup v2 memory.max at /sys/fs/cgroup/a/memory.max",
 * "sysconf(_SC_NPROCESSORS_ONLN)", ...) or is "unavailable".  Numbers are
 * < 0 when unknown; cgroup limits are also < 0 when the cgroup sets none
 * (the source then says "no limit").
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_SYSTEM_H
#define PGBL_SYSTEM_H

#include "system_facts.h"

/* Fill *facts (allocated in the current memory context). */
extern void SystemCollect(SystemFacts *facts);

#endif							/* PGBL_SYSTEM_H */
