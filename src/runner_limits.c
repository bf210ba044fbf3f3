/*-------------------------------------------------------------------------
 *
 * runner_limits.c
 *		The limits only a superuser may change (pgbench_lab.max_clients,
 *		max_duration, max_scale, max_samples) kept binding in a session that loads the
 *		library late.
 *
 * pgbench_lab needs no shared_preload_libraries, so until a session first
 * calls it, its settings are placeholders.  When the library loads,
 * PostgreSQL gives each placeholder's values to the real setting with the
 * rights of whoever set them, and drops with a WARNING a value its setter
 * may not give.  A value given when the session connected (a connection
 * option, PGOPTIONS="-c ...") does not stack on the value the server, the
 * database or the role gives (ALTER ROLE ... SET): it replaces it.  So when
 * it is dropped, the setting falls back to its built-in default, and a role
 * whose superuser set it a lower limit would get the default one.
 *
 * Each limit is therefore watched as it is defined: if its placeholder had
 * a value for the session (a reset value, from the server's files, the
 * database, the role or the connection) and the defined setting has none,
 * that value was refused and what the server meant for the session is
 * lost.  Everything the limit bounds is then refused in this session
 * (LimitsCheck, 42501) rather than run under the default.  A value the
 * session SETs before the library loads stacks on the configured one, which
 * stays when the SET is dropped: nothing is lost there.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/guc.h"
#include "utils/guc_tables.h"

#include "pgbench_lab.h"

#define PGBL_LIMITS_MAX 4

static const char *limits_lost[PGBL_LIMITS_MAX];
static int	nlimits_lost = 0;

/* The setting (or placeholder) of this name, or NULL. */
static struct config_generic *
setting_record(const char *name)
{
	int			n;
	struct config_generic **vars = PGBL_GUC_VARIABLES(&n);

	for (int i = 0; i < n; i++)
	{
		if (pg_strcasecmp(vars[i]->name, name) == 0)
			return vars[i];
	}
	return NULL;
}

/*
 * Before the limit "name" is defined: whether the session has a value for
 * it waiting in a placeholder, which defining it will apply.
 */
bool
LimitsPending(const char *name)
{
	struct config_generic *g = setting_record(name);

	return g != NULL && (g->flags & GUC_CUSTOM_PLACEHOLDER) && g->reset_source > PGC_S_DEFAULT;
}

/* After it is defined: note it lost if the value waiting was refused. */
void
LimitsDefined(const char *name, bool pending)
{
	struct config_generic *g = setting_record(name);

	if (!pending || g == NULL || g->reset_source > PGC_S_DEFAULT || nlimits_lost >= PGBL_LIMITS_MAX)
		return;
	limits_lost[nlimits_lost++] = g->name;
}

/*
 * Refuse what the limits bound when one of them lost the session's
 * configured value.
 */
void
LimitsCheck(void)
{
	if (nlimits_lost == 0)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("%s does not have the value configured for this session", limits_lost[0]),
			 errdetail("A value given for it when the session connected was refused when pgbench_lab loaded "
					   "(only superusers may set it), and the setting then fell back to its default, "
					   "not to the value of the server, the database or the role."),
			 errhint("Connect without that option (PGOPTIONS or the connection's options); "
					 "with pgbench_lab in shared_preload_libraries such an option is refused at connection.")));
}
