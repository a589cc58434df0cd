# fish completion for hostctl
#
# Install (one line in ~/.config/fish/config.fish):   hostctl completion fish | source
# or save it where fish loads completions on demand:
#   hostctl completion fish > ~/.config/fish/completions/hostctl.fish
#
# The candidates come from `hostctl __complete <words…>`, which prints one candidate per
# line, optionally followed by a tab and a description, and never sends a request.
# `hostctl api <Tab>` offers paths and the operation IDs of the API reference kept by an
# earlier `hostctl docs --operations`, `docs diff` or `api <operationId>`.

function __hostctl_complete
    set -l words (commandline -opc)
    set -e words[1]
    set -l current (commandline -ct)
    for line in (hostctl __complete $words $current 2>/dev/null)
        if test "$line" = ":files"
            __fish_complete_path $current
        else
            printf '%s\n' $line
        end
    end
end

complete -c hostctl -f -a '(__hostctl_complete)'
