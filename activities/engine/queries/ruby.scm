(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
(class name: (_) @name) @definition.class
(module name: (_) @name) @definition.module

(call
  method: (identifier) @import.kind
  arguments: (argument_list . (string (string_content) @import.source))
  (#match? @import.kind "^(require|require_relative|load)$")) @import
