# bash completion for hostctl
#
# Install (one line in ~/.bashrc):   source <(hostctl completion bash)
# or copy this file to /usr/share/bash-completion/completions/hostctl (or
# ~/.local/share/bash-completion/completions/hostctl).
# Works with or without the bash-completion package, in bash 3.2 and later.
#
# The candidates come from `hostctl __complete <words…>`, which prints one candidate per
# line, optionally followed by a tab and a description (not shown by bash), and never
# sends a request.
# `hostctl api <Tab>` offers paths and the operation IDs of the API reference kept by an
# earlier `hostctl docs --operations`, `docs diff` or `api <operationId>`.

_hostctl_complete() {
    local words=() cur i w join=0 line prefix=''
    COMPREPLY=()

    # bash splits "--output=js" into "--output" "=" "js"; hostctl wants the whole word.
    for ((i = 1; i <= COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        if [[ $w == "=" && ${#words[@]} -gt 0 ]]; then
            words[${#words[@]} - 1]+="="
            join=1
        elif ((join)); then
            words[${#words[@]} - 1]+="$w"
            join=0
        else
            words+=("$w")
        fi
    done
    ((${#words[@]} > 0)) || words=("")
    cur=${words[${#words[@]} - 1]}

    # readline replaces only the text after the last "=" when "=" breaks words.
    if [[ $cur == *=* && $COMP_WORDBREAKS == *=* ]]; then
        prefix="${cur%=*}="
    fi

    while IFS= read -r line; do
        if [[ $line == ":files" ]]; then
            compopt -o filenames 2>/dev/null
            while IFS= read -r w; do
                COMPREPLY+=("$w")
            done < <(compgen -f -- "${cur#"$prefix"}")
            continue
        fi
        line=${line%%$'\t'*}
        [[ -n $line ]] || continue
        line=${line#"$prefix"}
        # readline inserts a candidate as it is: one that holds anything the shell reads
        # (a profile named "staging;touch x;" in the config) is quoted for it first.
        if [[ $line == *[!A-Za-z0-9_./:=,@+%^-]* ]]; then
            printf -v line '%q' "$line"
        fi
        COMPREPLY+=("$line")
    done < <(hostctl __complete "${words[@]}" 2>/dev/null)
    return 0
}

complete -F _hostctl_complete hostctl
