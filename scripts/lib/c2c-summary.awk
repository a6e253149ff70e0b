# c2c-summary.awk: the contended cache lines of a `perf c2c report --stdio`
# and the code that touches each, for people.
#
#   awk -v lines=5 -v sites=8 -f c2c-summary.awk report.txt
#
# It reads the trace totals (load HITMs, local and remote) and the "Shared
# Cache Line Distribution Pareto": for each cache line, the header row after
# a row of dashes (its number, remote and local HITMs, ..., its address),
# then one row per code site (HITM shares in percent, ..., the data offset
# in the line, ..., "[.]" or "[k]", symbol, object, source:line). Columns
# differ between perf versions (Snoop Peer, Any Lvl or N/A), so fields are
# found by what they look like, not where they are.

BEGIN {
	if (lines == "") lines = 5
	if (sites == "") sites = 8
}

/^  Load Local HITM +:/ { lcl_total = $NF }
/^  Load Remote HITM +:/ { rmt_total = $NF }
/^  Store Operations +:/ { stores = $NF }
/^  Events +:/ { sub(/^  Events +: */, ""); events = $0 }
/^ +: cpu\// && events != "" { sub(/^ +: */, ""); events = events " " $0 }
/Shared Cache Line Distribution Pareto/ { pareto = 1; next }

pareto && /^ *-----+ *$/ { dashes = !dashes; next }

# A cache line's header row sits between two rows of dashes.
pareto && dashes && NF >= 4 && $NF ~ /^0x[0-9a-f]+$/ {
	n++
	addr[n] = $NF
	rmt[n] = $2
	lcl[n] = $3
	nsite[n] = 0
	next
}

pareto && n > 0 && /\[[.k]\] / {
	for (k = 1; k <= NF; k++)
		if ($k == "[.]" || $k == "[k]")
			break
	if (k > NF)
		next
	pct = 0
	off = ""
	for (i = 1; i < k; i++) {
		if ($i ~ /%$/) {
			pct++
			if (pct == 1) srmt = $i
			if (pct == 2) slcl = $i
		} else if (off == "" && $i ~ /^0x[0-9a-f]+$/) {
			off = $i
		}
	}
	m = ++nsite[n]
	site[n, m] = sprintf("%7s %7s  %-6s %s %s  %s", srmt, slcl, off, $k, $(k + 1), $(k + 3))
	next
}

END {
	if (events != "")
		printf "sampled: %s\n", events
	printf "load HITMs: %d local, %d remote; %d stores sampled\n", lcl_total, rmt_total, stores
	if (n == 0) {
		print "no contended cache lines: no load hit a line another cpu had modified (HITM) while sampled."
		print "The run may be too short, the scenario uncontended, or the load-latency threshold (--ldlat) too high."
		exit
	}
	total = lcl_total + rmt_total
	for (i = 1; i <= n && i <= lines; i++) {
		share = ""
		if (total > 0)
			share = sprintf(", %.1f%% of all", 100 * (rmt[i] + lcl[i]) / total)
		printf "\ncache line %s: %d HITMs (%d local, %d remote%s)\n", addr[i], rmt[i] + lcl[i], lcl[i], rmt[i], share
		printf "  %7s %7s  %-6s %s\n", "rmt%", "lcl%", "offset", "symbol  source:line   (share of the line's remote and local HITMs)"
		for (j = 1; j <= nsite[i] && j <= sites; j++)
			printf "  %s\n", site[i, j]
		if (nsite[i] > sites)
			printf "  (%d more sites)\n", nsite[i] - sites
	}
	if (n > lines)
		printf "\n(%d more contended cache lines in the full report)\n", n - lines
}
