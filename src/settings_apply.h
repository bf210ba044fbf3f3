/*-------------------------------------------------------------------------
 *
 * settings_apply.h
 *		Reload-level settings changed for an experiment with ALTER SYSTEM,
 *		and postgresql.auto.conf put back as it was whatever happens
 *		(settings_apply.c, settings_autoconf.c); what the configuration
 *		files hold and the server has not applied (settings_pending.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_SETTINGS_APPLY_H
#define PGBL_SETTINGS_APPLY_H

#include "postgres.h"

#include "access/htup.h"
#include "access/tupdesc.h"
#include "nodes/pg_list.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"

/* how long a reload may take to reach a freshly started process */
#define PGBL_RELOAD_WAIT_MS		30000

/*
 * postgresql.auto.conf as it was before an experiment's first change, kept
 * in TopMemoryContext for as long as the experiment may change it, so that
 * an error or the session's exit can put it back without a transaction.
 */
typedef struct AutoConfSaved
{
	int64		experiment_id;
	int			nnames;
	char	  **names;			/* the settings the experiment changes */
	char	  **orig;			/* each one's value in the file, or NULL */
	bool		exists;			/* was there a file at all */
	char	   *bytes;			/* its contents, byte for byte */
	Size		len;
} AutoConfSaved;

/* settings_autoconf.c: the file itself, no catalog access */
extern bool AutoConfRead(char **bytes, Size *len);
extern char *AutoConfEntry(const char *bytes, Size len, const char *name);
extern bool AutoConfPutBack(const AutoConfSaved *saved, int elevel, bool *changed);
extern void AutoConfArmExit(AutoConfSaved *saved);
extern void AutoConfDisarmExit(void);

/* settings_probe.c */
extern void SettingsReloadAndWait(int nnames, char **names);

/* settings_apply.c */
extern void SettingsCheckSystem(Jsonb *system, bool *any);
extern void SettingsCheckSession(Jsonb *settings);
extern AutoConfSaved *SettingsSave(int64 experiment_id, Datum names);
extern void SettingsCheckBusy(void);
extern void SettingsPut(AutoConfSaved *saved, Jsonb *system);
extern void SettingsRestore(AutoConfSaved *saved);
extern bool SettingsRestoreInError(AutoConfSaved *saved);
extern void SettingsFree(AutoConfSaved *saved);
extern const char *SettingsPutBack(const AutoConfSaved *saved, bool *changed);
extern void SettingsMarkRestored(int64 experiment_id, const char *outcome);
extern void SettingsCheckRestart(Jsonb *restart);
extern void SettingsAlterSystem(const char *name, const char *value);

/* settings_restore.c */
extern void SettingsKeep(Jsonb *values);

/* fn(name, value, arg) for each setting of a jsonb object; value NULL when not a scalar */
typedef void (*SettingsEachFunc) (const char *name, const char *value, void *arg);
extern void SettingsEach(Jsonb *settings, const char *what, SettingsEachFunc fn, void *arg);
extern void SettingsWriteRestart(AutoConfSaved *saved, Jsonb *restart);
extern const char *SettingsWriteBackRestart(AutoConfSaved *saved);
extern bool SettingsValueIsLive(const char *name, const char *value, char **shown);

/* settings_pending.c */
extern void SettingsCheckPending(bool reloads, Jsonb *restart);

/* settings_restore.c */
typedef struct SettingsRecovered
{
	int64		experiment_id;
	Datum		names;			/* text[] */
	TimestampTz saved_at;
	char	   *outcome;
	bool		changed;		/* the file was written */
	bool		live;			/* its experiment is still under way */
	bool		waiting;		/* a two-phase experiment between its phases */
	int			pid;
} SettingsRecovered;

extern List *SettingsRecover(bool abandon_waiting);
extern AutoConfSaved *SettingsSavedFromRow(HeapTuple row, TupleDesc desc, MemoryContext cxt,
										   SettingsRecovered *r);

#endif							/* PGBL_SETTINGS_APPLY_H */
