; Symbol facts for Bash (captures: engine/symbols/plugin.ts). A command whose name is a word is a call; a command
; whose name is computed (`"$cmd"`, `$f`) is dynamic, as are `eval` and `$(...)`-built names.
(command name: (command_name (word) @call.name))
(command name: (command_name [(simple_expansion) (expansion) (string) (command_substitution)] @call.dynamic))
(command name: (command_name (word) @call.dynamic) (#match? @call.dynamic "^(eval|exec)$"))

; Imports: `source f` / `. f` (the same spec as engine/languages/bash.ts reads): every function of the file.
(command
  name: (command_name) @_cmd
  .
  argument: (_) @import.source
  (#match? @_cmd "^(source|\\.)$")) @import
