# SPDX-License-Identifier: MIT
# doc/etwforge.bash - bash completion for etwforge(1): subcommands, each
# subcommand's options (the ones its --help lists; tests/test_manual.py
# checks), and file names for the arguments that take files. Installed as
# etwforge in bash-completion's completions folder.

_etwforge_options() {
	case $1 in
	gen)
		echo "-o --output -t --truth --truth-spinlocks --seed --duration --cpus -s --set --symbols --print-config --json -j --jobs -q --quiet -h --help"
		;;
	replay)
		echo "-o --output --stream-paths --json -q --quiet -h --help"
		;;
	dump)
		echo "--stats --jsonl --raw --keep-going --max-wait-reason --timeline --chrome-trace --flamegraph --folded --symbols --truth --from --to --cpus -h --help"
		;;
	verify)
		echo "-t --truth -s --session -q --quiet -h --help"
		;;
	compare)
		echo "--json --svg -k --keep-going -h --help"
		;;
	fit)
		echo "-o --output --anonymize --json -k --keep-going --progress -h --help"
		;;
	bench)
		echo "--json --quick --only -h --help"
		;;
	corpus)
		echo "-o --out -s --seed -m --mangle -n --mutants -S --shard -z --zip -q --quiet -h --help"
		;;
	esac
}

_etwforge() {
	local cur prev cmd i
	local commands="gen replay dump verify compare fit bench corpus help"

	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*)
			cmd=${COMP_WORDS[i]}
			break
			;;
		esac
	done

	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "-h --help --version" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
		fi
		return
	fi

	# values of the option just typed
	case $cmd:$prev in
	gen:-o | gen:--output | replay:-o | replay:--output)
		_etwforge_files '@(etl)'
		return
		;;
	fit:-o | fit:--output)
		_etwforge_files '@(yaml|yml|json)'
		return
		;;
	gen:-t | gen:--truth | verify:-t | verify:--truth | dump:--truth)
		_etwforge_files '@(jsonl|json)'
		return
		;;
	gen:--truth-spinlocks)
		mapfile -t COMPREPLY < <(compgen -W "all logged" -- "$cur")
		return
		;;
	bench:--only)
		local paths="ccswap cswitch spinlock gen decode replay_verify mutate"
		mapfile -t COMPREPLY < <(compgen -P "${cur%"${cur##*,}"}" -W "$paths" -- "${cur##*,}")
		return
		;;
	dump:--timeline | dump:--flamegraph | compare:--svg)
		_etwforge_files '@(svg)'
		return
		;;
	dump:--chrome-trace)
		_etwforge_files '@(json)'
		return
		;;
	dump:--folded)
		_etwforge_files '@(txt)'
		return
		;;
	corpus:-o | corpus:--out | gen:--symbols | dump:--symbols)
		if declare -F _filedir >/dev/null; then
			_filedir -d
		else
			mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		fi
		return
		;;
	gen:--seed | gen:--duration | gen:--cpus | gen:-s | gen:--set | verify:-s | verify:--session | \
		dump:--max-wait-reason | dump:--from | dump:--to | dump:--cpus | corpus:-s | \
		corpus:--seed | corpus:-z | corpus:--zip)
		return # a value to type, not a file
		;;
	esac

	if [[ $cmd == help ]]; then
		mapfile -t COMPREPLY < <(compgen -W "gen replay dump verify compare fit bench corpus" -- "$cur")
		return
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_etwforge_options "$cmd")" -- "$cur")
		return
	fi
	case $cmd in
	gen) _etwforge_files '@(yaml|yml|json)' ;;
	replay) _etwforge_files '@(jsonl|json)' ;;
	dump | verify | compare | fit) _etwforge_files '@(etl)' ;;
	bench) ;; # no arguments
	esac
}

# File names ending in the extglob pattern $1, and folders; plain file names
# when bash-completion's _filedir is not loaded.
_etwforge_files() {
	if declare -F _filedir >/dev/null; then
		_filedir "$1"
	else
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	fi
}

complete -F _etwforge etwforge
