(class_declaration name: (_) @name) @definition.class
(protocol_declaration name: (_) @name) @definition.interface
(function_declaration name: (_) @name) @definition.function
(protocol_function_declaration name: (_) @name) @definition.method
(init_declaration "init" @name) @definition.method

(import_declaration (identifier) @import.source) @import
