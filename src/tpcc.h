/*-------------------------------------------------------------------------
 *
 * tpcc.h
 *		init_tpcc()'s helpers in C: the rows (tpcc_load.c) and the disk
 *		check (tpcc_disk.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_TPCC_H
#define PGBL_TPCC_H

/* tpcc_disk.c: refuse a caller who may not execute init_tpcc() */
extern void TpccCheckCaller(const char *what);

#endif							/* PGBL_TPCC_H */
