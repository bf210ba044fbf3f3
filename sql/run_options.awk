# run_options.awk: writes the run options into the SQL declarations.
#
#   awk -f sql/run_options.awk src/run_spec.h src/run_options.h FILE.sql...
#
# Reads the list of run options (src/run_options.h, one RUN_OPTION line an
# option) and where its head ends (RUN_OPT_HEAD in src/run_spec.h), then
# prints the SQL files one after the other, as cat would, with each marker
# line replaced by one argument declaration per option:
#
#   @RUN_OPTIONS_HEAD@          the head's options, with run()'s defaults
#   @RUN_OPTIONS_TAIL@          the tail's options, with run()'s defaults
#   @RUN_OPTIONS_EXCEPT a b@    every option but a and b, all DEFAULT NULL
#                               (an experiment kind's: those it declares
#                               itself, or does not take, are named)
#
# in the list's order.  One more marker writes a file of the tree in a
# fragment, so that a text shipped as a file is not restated in SQL:
#
#   @SCRIPT_FILE name weight path@   the row (name, weight, text) of a
#                               VALUES list, the text the file's, byte for
#                               byte, dollar-quoted $script$
#
# A marker opens its line, after the indentation
# that begins every declaration (elsewhere, as in a comment, the text is
# left as it is); what follows it ends the last declaration (a comma when
# more arguments follow, or the closing parenthesis).  A default is written as
# run() declares it: a number as it is, any other value quoted.  POSIX awk
# only (Debian's default is mawk): the build runs under PGXS and in a
# Debian package build.

function fail(msg) {
	print "run_options.awk: " msg | "cat 1>&2"
	failed = 1
	exit 1
}

# The first field of s up to ", " (fields may not hold a comma), removed
# from s.
function field(   i, f) {
	i = index(rest, ", ")
	if (i == 0)
		fail(FILENAME ":" FNR ": a RUN_OPTION line has fewer than seven fields")
	f = substr(rest, 1, i - 1)
	rest = substr(rest, i + 2)
	return f
}

function unquote(s, what) {
	if (s !~ /^"[^"\\]*"$/)
		fail(FILENAME ":" FNR ": " what " must be a plain C string, not " s)
	return substr(s, 2, length(s) - 2)
}

function declaration(i, with_default,   d) {
	d = "DEFAULT NULL"
	if (with_default && dflt[i] != "") {
		if (sqltype[i] ~ /^(smallint|integer|bigint|numeric|real|double precision)$/ &&
			dflt[i] ~ /^-?[0-9]+(\.[0-9]+)?$/)
			d = "DEFAULT " dflt[i]
		else {
			d = dflt[i]
			gsub(/'/, "''", d)
			d = "DEFAULT '" d "'"
		}
	}
	return name[i] " " sqltype[i] " " d
}

# Prints options from..to (those not in skip) as a marker's expansion.
function expand(from, to, with_default, before, after,   i, out, n) {
	n = 0
	for (i = from; i <= to; i++) {
		if (i in skip)
			continue
		if (n++)
			out = out ",\n"
		out = out before declaration(i, with_default)
	}
	if (n == 0)
		fail(FILENAME ":" FNR ": the marker declares no option")
	print out after
}

FILENAME ~ /run_spec\.h$/ {
	if ($1 == "#define" && $2 == "RUN_OPT_HEAD") {
		head_enum = $3
		sub(/^RUN_OPT_/, "", head_enum)
	}
	next
}

FILENAME ~ /run_options\.h$/ {
	if ($0 !~ /^RUN_OPTION\(/)
		next
	rest = substr($0, length("RUN_OPTION(") + 1)
	n_opts++
	enum[n_opts] = field()
	name[n_opts] = field()
	field()
	sqltype[n_opts] = unquote(field(), "the SQL type")
	d = field()
	dflt[n_opts] = d == "NULL" ? "" : unquote(d, "the default")
	if (d != "NULL" && dflt[n_opts] == "")
		fail(FILENAME ":" FNR ": an empty default")
	if (name[n_opts] !~ /^[a-z_][a-z0-9_]*$/)
		fail(FILENAME ":" FNR ": option name " name[n_opts] " is not a plain SQL name")
	if (name[n_opts] in index_of)
		fail(FILENAME ":" FNR ": option " name[n_opts] " is listed twice")
	index_of[name[n_opts]] = n_opts
	if (enum[n_opts] == head_enum)
		head = n_opts
	next
}

# the SQL files
!started {
	started = 1
	if (n_opts == 0)
		fail("no RUN_OPTION line read: pass src/run_spec.h and src/run_options.h first")
	if (head_enum == "" || head == 0)
		fail("RUN_OPT_HEAD (src/run_spec.h) names no option of src/run_options.h")
}

/^[ \t]*@SCRIPT_FILE / {
	if (!match($0, /@SCRIPT_FILE [a-z0-9_-]+ [0-9]+ [A-Za-z0-9_.\/-]+@/))
		fail(FILENAME ":" FNR ": a marker that is not @SCRIPT_FILE name weight path@")
	before = substr($0, 1, RSTART - 1)
	after = substr($0, RSTART + RLENGTH)
	split(substr($0, RSTART + 1, RLENGTH - 2), words, " ")
	text = ""
	while ((got = (getline line < words[4])) > 0)
		text = text line "\n"
	if (got < 0)
		fail(FILENAME ":" FNR ": cannot read " words[4])
	close(words[4])
	if (text == "" || index(text, "$script$") > 0)
		fail(FILENAME ":" FNR ": " words[4] " is empty or holds $script$")
	printf "%s('%s', %s, $script$%s$script$)%s\n", before, words[2], words[3], text, after
	next
}

/^[ \t]*@RUN_OPTIONS/ {
	if (!match($0, /@RUN_OPTIONS_[A-Z]+( [a-z_][a-z0-9_]*)*@/))
		fail(FILENAME ":" FNR ": a marker that is not @RUN_OPTIONS_HEAD@, @RUN_OPTIONS_TAIL@ or @RUN_OPTIONS_EXCEPT name ...@")
	before = substr($0, 1, RSTART - 1)
	after = substr($0, RSTART + RLENGTH)
	marker = substr($0, RSTART + 1, RLENGTH - 2)
	if (after ~ /@RUN_OPTIONS/)
		fail(FILENAME ":" FNR ": two markers on one line")
	for (k in skip)
		delete skip[k]
	nw = split(marker, words, " ")
	if (words[1] == "RUN_OPTIONS_HEAD" && nw == 1)
		expand(1, head - 1, 1, before, after)
	else if (words[1] == "RUN_OPTIONS_TAIL" && nw == 1)
		expand(head, n_opts, 1, before, after)
	else if (words[1] == "RUN_OPTIONS_EXCEPT" && nw > 1) {
		for (w = 2; w <= nw; w++) {
			if (!(words[w] in index_of))
				fail(FILENAME ":" FNR ": " words[w] " is not a run option (src/run_options.h)")
			skip[index_of[words[w]]] = 1
		}
		expand(1, n_opts, 0, before, after)
	} else
		fail(FILENAME ":" FNR ": unknown marker @" marker "@")
	next
}

{ print }

END {
	if (failed)
		exit 1
	if (!started)
		fail("no SQL file given")
}
