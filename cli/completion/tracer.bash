# bash completion for tracer: its commands, each command's options, and
# their values: event names (from tracer list), trace directories and
# files, and after record's -- a command to run.
# What each command and option takes comes from the option tables,
# generated above this part (cli/completion/completion_data.c).

# Tracepoints matching what is typed (tracer list, as root can list them),
# and the probe kinds while no system is typed.
_tracer_events() {
	local cur=$1
	[[ $cur == *:* ]] ||
		printf '%s\n' kprobe: kretprobe: fentry: fexit: uprobe: uretprobe: usdt:
	tracer list "$cur*" 2>/dev/null
}

# COMPREPLY: the words of KIND (event, dir, file, command) for cur.
_tracer_complete_kind() { # _tracer_complete_kind KIND OFFSET
	case $1 in
	event)
		COMPREPLY=($(compgen -W "$(_tracer_events "$cur")" -- "$cur"))
		[[ ${#COMPREPLY[@]} = 1 && ${COMPREPLY[0]} == *: ]] && compopt -o nospace 2>/dev/null
		__ltrim_colon_completions "$cur" ;;
	dir) _filedir -d ;;
	file) _filedir ;;
	command) _command_offset "$2" ;;
	esac
}

_tracer() {
	local cur prev words cword cmd i kind
	_init_completion -n : || return

	if ((cword == 1)); then
		COMPREPLY=($(compgen -W "$(_tracer_commands) help --help --version" -- "$cur"))
		return
	fi
	cmd=${words[1]}
	[[ $cmd == help ]] && { COMPREPLY=($(compgen -W "$(_tracer_commands)" -- "$cur")); return; }
	# After record's --, the command to run and its own arguments.
	for ((i = 2; i < cword; i++)); do
		if [[ ${words[i]} == -- ]]; then
			_tracer_complete_kind command $((i + 1))
			return
		fi
	done
	kind=$(_tracer_value "$cmd" "$prev")
	if [[ -n $kind ]]; then
		_tracer_complete_kind "$kind"
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_tracer_options "$cmd") --" -- "$cur"))
		return
	fi
	kind=$(_tracer_operand "$cmd")
	[[ $kind == command ]] && kind=
	[[ -n $kind ]] && _tracer_complete_kind "$kind"
}
complete -F _tracer tracer
