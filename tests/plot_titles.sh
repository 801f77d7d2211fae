#!/bin/sh
# plot_titles.sh PLOT MDPVI ARGS...: runs MDPVI ARGS... --plot PLOT, then prints the
# plot's texts (gnuplot's SVG has each label and each line's title in a <text>), for a
# test to match; exits with mdpvi's status, or 3 when it wrote no plot.
plot=$1
shift
rm -f "$plot"
"$@" --plot "$plot" >/dev/null
status=$?
[ "$status" -eq 0 ] || exit "$status"
[ -s "$plot" ] || { echo "no plot written"; exit 3; }
grep -o '<text>[^<]*</text>' "$plot" | sed 's/<[^>]*>//g'
