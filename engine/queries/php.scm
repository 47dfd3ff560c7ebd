(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(namespace_definition name: (namespace_name) @name body: (compound_statement)) @definition.namespace

(namespace_definition name: (namespace_name) @import.namespace) @import
(namespace_use_declaration) @import.use @import
(qualified_name) @import.name @import
(relative_name) @import.name @import
(include_expression (_) @import.path) @import
(include_once_expression (_) @import.path) @import
(require_expression (_) @import.path) @import
(require_once_expression (_) @import.path) @import
