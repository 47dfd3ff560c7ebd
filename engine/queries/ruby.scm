(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
(class name: (_) @name) @definition.class
(module name: (_) @name) @definition.class

; require/require_relative/load with their first argument (a string, or File.expand_path/File.join/... of
; __dir__ or __FILE__); autoload :Name, 'path' (a lazy require).
(call
  !receiver
  method: (identifier) @import.kind
  arguments: (argument_list . (_) @import.arg)
  (#match? @import.kind "^(require|require_relative|load)$")) @import
(call
  method: (identifier) @import.kind
  arguments: (argument_list . (simple_symbol) . (_) @import.arg)
  (#eq? @import.kind "autoload")) @import
