# annotate-summary.awk: the hottest instructions of a `perf annotate --stdio`
# of one function, and the samples on and right after each locked one.
#
#   awk -f annotate-summary.awk annotate.txt
#
# A sample is charged to the instruction the CPU was about to retire when
# the interrupt came, so a stall on a locked instruction shows up on its
# successor (skid): the summary adds the two.
/^ *Percent/ { sub(/^ *Percent *\| */, ""); print; next }
/^ *[0-9]+\.[0-9]+ : +[0-9a-f]+:/ {
	n++
	pct[n] = $1 + 0
	line[n] = $0
	insn = $0
	sub(/^ *[0-9.]+ : +[0-9a-f]+: +/, "", insn)
	text[n] = insn
}
END {
	printf "hottest instructions:\n"
	for (k = 1; k <= 5 && k <= n; k++) {
		best = 0
		for (i = 1; i <= n; i++)
			if (!(i in shown) && (best == 0 || pct[i] > pct[best]))
				best = i
		if (best == 0 || pct[best] == 0)
			break
		shown[best] = 1
		print line[best]
	}
	# XCHG with a memory operand is locked without the prefix: it is
	# what Go compiles an atomic store to on amd64.
	for (i = 1; i <= n; i++) {
		if (text[i] !~ /^lock / && text[i] !~ /^xchg +[^ ]*\(/)
			continue
		printf "\naround %s:\n", text[i]
		for (j = i - 2; j <= i + 3; j++)
			if (j >= 1 && j <= n)
				print line[j]
		next_pct = (i < n) ? pct[i + 1] : 0
		printf "on the locked instruction %.2f%%, on the one after it (skid) %.2f%%: %.2f%% of the function's samples\n",
			pct[i], next_pct, pct[i] + next_pct
	}
}
