/*-------------------------------------------------------------------------
 *
 * settings_autoconf.c
 *		postgresql.auto.conf itself: read it, read an entry of it, and put
 *		it back byte for byte, without a transaction.
 *
 * An experiment that compares reload-level settings changes them with
 * ALTER SYSTEM, which rewrites postgresql.auto.conf.  Before the first
 * change the file's bytes are recorded (settings_apply.c commits them in
 * pgbench_lab_internal.settings_saved); when the experiment ends, fails, is
 * cancelled or its session is terminated, the bytes go back.  That must
 * work where no transaction can run (in a PG_CATCH block, and in a
 * before_shmem_exit callback when the session is terminated), so nothing
 * here touches the catalog: the file is parsed with the server's own
 * configuration-file parser and written as ALTER SYSTEM writes it (a
 * temporary file, synced, renamed into place, under AutoFileLock).
 *
 * The saved bytes go back only if the file differs from them in nothing
 * but the experiment's own settings.  Should another session have run
 * ALTER SYSTEM for some other setting meanwhile, writing the old bytes
 * would undo that change too; then AutoConfPutBack() leaves the file alone
 * and reports it, and settings_apply.c restores the experiment's entries
 * one by one with ALTER SYSTEM instead (which keeps the other change).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "settings_apply.h"

#define PGBL_AUTOCONF_TEMP	PG_AUTOCONF_FILENAME ".tmp"

/* the saved file to put back if the session exits mid-experiment */
static AutoConfSaved *armed = NULL;
static bool exit_registered = false;

/*
 * The whole of postgresql.auto.conf, read as it is; false (and *bytes
 * NULL) when there is no such file.
 */
bool
AutoConfRead(char **bytes, Size *len)
{
	int			fd = OpenTransientFile(PG_AUTOCONF_FILENAME, O_RDONLY | PG_BINARY);
	struct stat st;
	Size		done = 0;

	*bytes = NULL;
	*len = 0;
	if (fd < 0 && errno == ENOENT)
		return false;
	if (fd < 0 || fstat(fd, &st) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read file \"%s\": %m", PG_AUTOCONF_FILENAME)));
	*bytes = palloc(st.st_size + 1);
	while (done < (Size) st.st_size)
	{
		ssize_t		got = read(fd, *bytes + done, st.st_size - done);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read file \"%s\": %m", PG_AUTOCONF_FILENAME)));
		done += got;
	}
	(*bytes)[done] = '\0';
	*len = done;
	CloseTransientFile(fd);
	return true;
}

/*
 * The file's entries as the server reads them, parsed from memory; NULL
 * for none, and *ok false (with a message at elevel) if they do not parse.
 */
static ConfigVariable *
parse_entries(const char *bytes, Size len, int elevel, bool *ok)
{
	ConfigVariable *head = NULL;
	ConfigVariable *tail = NULL;
	FILE	   *fp;

	*ok = true;
	if (bytes == NULL || len == 0)
		return NULL;
	fp = fmemopen((void *) bytes, len, "r");
	if (fp == NULL)
	{
		ereport(elevel, (errmsg("could not read the contents of \"%s\": %m", PG_AUTOCONF_FILENAME)));
		*ok = false;
		return NULL;
	}
	*ok = ParseConfigFp(fp, PG_AUTOCONF_FILENAME, 0, elevel, &head, &tail);
	fclose(fp);
	return head;
}

/*
 * The value a file's bytes give to a setting (its last entry), or NULL if
 * they give it none.
 */
char *
AutoConfEntry(const char *bytes, Size len, const char *name)
{
	bool		ok;
	ConfigVariable *head = parse_entries(bytes, len, ERROR, &ok);
	char	   *value = NULL;

	for (ConfigVariable *v = head; v != NULL; v = v->next)
		if (pg_strcasecmp(v->name, name) == 0)
			value = pstrdup(v->value);
	FreeConfigVariables(head);
	return value;
}

static bool
is_managed(const AutoConfSaved *saved, const char *name)
{
	for (int i = 0; i < saved->nnames; i++)
		if (pg_strcasecmp(saved->names[i], name) == 0)
			return true;
	return false;
}

/* Do two files hold the same entries, but for the experiment's settings? */
static bool
same_but_managed(const AutoConfSaved *saved, const char *bytes, Size len, int elevel)
{
	bool		ok_a;
	bool		ok_b;
	ConfigVariable *a = parse_entries(saved->bytes, saved->len, elevel, &ok_a);
	ConfigVariable *b = parse_entries(bytes, len, elevel, &ok_b);
	ConfigVariable *x = a;
	ConfigVariable *y = b;
	bool		same = ok_a && ok_b;

	while (same)
	{
		while (x != NULL && is_managed(saved, x->name))
			x = x->next;
		while (y != NULL && is_managed(saved, y->name))
			y = y->next;
		if (x == NULL || y == NULL)
		{
			same = x == y;
			break;
		}
		same = strcmp(x->name, y->name) == 0 && strcmp(x->value, y->value) == 0;
		x = x->next;
		y = y->next;
	}
	FreeConfigVariables(a);
	FreeConfigVariables(b);
	return same;
}

/* ALTER SYSTEM's way: a temporary file, synced, renamed into place. */
static bool
write_file(const char *bytes, Size len, int elevel)
{
	int			fd = OpenTransientFile(PGBL_AUTOCONF_TEMP, O_CREAT | O_RDWR | O_TRUNC | PG_BINARY);
	Size		done = 0;

	if (fd < 0)
	{
		ereport(elevel, (errcode_for_file_access(),
						 errmsg("could not open file \"%s\": %m", PGBL_AUTOCONF_TEMP)));
		return false;
	}
	while (done < len)
	{
		ssize_t		put = write(fd, bytes + done, len - done);

		if (put < 0 && errno == EINTR)
			continue;
		if (put <= 0)
		{
			if (put == 0)
				errno = ENOSPC;
			ereport(elevel, (errcode_for_file_access(),
							 errmsg("could not write file \"%s\": %m", PGBL_AUTOCONF_TEMP)));
			CloseTransientFile(fd);
			return false;
		}
		done += put;
	}
	if (pg_fsync(fd) != 0)
	{
		ereport(elevel, (errcode_for_file_access(),
						 errmsg("could not fsync file \"%s\": %m", PGBL_AUTOCONF_TEMP)));
		CloseTransientFile(fd);
		return false;
	}
	CloseTransientFile(fd);
	return durable_rename(PGBL_AUTOCONF_TEMP, PG_AUTOCONF_FILENAME, elevel) == 0;
}

/*
 * Put postgresql.auto.conf back as saved, if it differs from the saved
 * bytes only in the experiment's settings.  Returns whether the file is
 * now as saved; *changed says whether it was written.  Messages at elevel
 * (LOG where no error may be thrown).
 */
bool
AutoConfPutBack(const AutoConfSaved *saved, int elevel, bool *changed)
{
	char	   *bytes;
	Size		len;
	bool		exists;
	bool		as_saved;

	*changed = false;
	LWLockAcquire(AutoFileLock, LW_EXCLUSIVE);
	PG_TRY();
	{
		exists = AutoConfRead(&bytes, &len);
		as_saved = exists == saved->exists && len == saved->len &&
			(len == 0 || memcmp(bytes, saved->bytes, len) == 0);
		if (!as_saved && same_but_managed(saved, bytes, len, elevel))
		{
			if (saved->exists)
				as_saved = write_file(saved->bytes, saved->len, elevel);
			else
				as_saved = durable_unlink(PG_AUTOCONF_FILENAME, elevel) == 0;
			*changed = as_saved;
		}
	}
	PG_FINALLY();
	{
		LWLockRelease(AutoFileLock);
	}
	PG_END_TRY();
	return as_saved;
}

/*
 * The session is exiting (terminated by pg_terminate_backend, or the
 * postmaster is shutting down) while an experiment has settings changed:
 * put the file back and have the server reload it.  No transaction, no
 * error: what cannot be done here is done by the next experiment call or
 * by restore_settings(), from the committed record.
 */
static void
at_exit(int code, Datum arg)
{
	AutoConfSaved *saved = armed;
	bool		changed;

	armed = NULL;
	if (saved == NULL)
		return;
	PG_TRY();
	{
		if (AutoConfPutBack(saved, LOG, &changed) && changed)
		{
			ereport(LOG,
					(errmsg("pgbench_lab: postgresql.auto.conf put back as it was before experiment " INT64_FORMAT,
							saved->experiment_id)));
			(void) kill(PostmasterPid, SIGHUP);
		}
	}
	PG_CATCH();
	{
		/* the record stays: the next call restores from it */
		EmitErrorReport();
		FlushErrorState();
	}
	PG_END_TRY();
}

/* From now on, the session's exit puts the saved file back. */
void
AutoConfArmExit(AutoConfSaved *saved)
{
	if (!exit_registered)
	{
		before_shmem_exit(at_exit, (Datum) 0);
		exit_registered = true;
	}
	armed = saved;
}

void
AutoConfDisarmExit(void)
{
	armed = NULL;
}
