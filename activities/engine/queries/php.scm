(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(namespace_definition name: (namespace_name) @name body: (compound_statement)) @definition.namespace

(namespace_use_clause (qualified_name) @import.use) @import
(namespace_use_clause (name) @import.use) @import
(include_expression (_) @import.path) @import
(include_once_expression (_) @import.path) @import
(require_expression (_) @import.path) @import
(require_once_expression (_) @import.path) @import
