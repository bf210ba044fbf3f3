/*-------------------------------------------------------------------------
 *
 * settings_live.h
 *		The live server's settings (pg_settings), for comparing and
 *		validating recommendations (settings_live.c).
 *
 * SettingsLookup() reads pg_settings once for a list of names; each
 * setting's value and bounds are kept both as the server shows them and
 * converted to the recommender's base units (bytes, seconds), so that a
 * recommendation can be compared and clamped without string juggling.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_SETTINGS_LIVE_H
#define PGBL_SETTINGS_LIVE_H

#include "recommender.h"

typedef struct SettingsLive
{
	bool		found;
	char	   *current;		/* as SHOW prints it */
	char	   *setting;		/* pg_settings.setting */
	char	   *source;			/* pg_settings.source */
	const char *context;		/* restart / reload / session / read-only */
	char	   *vartype;
	double		multiplier;		/* base units (bytes, seconds) per GUC unit */
	double		value;			/* setting in base units; NaN for enum/bool */
	bool		has_bounds;
	double		min;			/* bounds in base units */
	double		max;
	char	   *enumvals;		/* "{off,pglz,lz4}" or NULL */
} SettingsLive;

extern void SettingsLookup(const char *const *names, int count,
						   SettingsLive *out);
extern bool SettingsClamp(const SettingsLive *live, RecoSetting *s);
extern bool SettingsDiffers(const SettingsLive *live, const RecoSetting *s);
extern double SettingsDataSize(void);

#endif							/* PGBL_SETTINGS_LIVE_H */
