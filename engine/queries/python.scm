(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class

; import a.b, c as d
(import_statement name: (dotted_name) @import.module) @import
(import_statement name: (aliased_import name: (dotted_name) @import.module)) @import
; from x import a, b as c / from . import a / from x import *  (one match per imported name)
(import_from_statement module_name: (_) @import.from name: (dotted_name) @import.name) @import
(import_from_statement module_name: (_) @import.from name: (aliased_import name: (dotted_name) @import.name)) @import
(import_from_statement module_name: (_) @import.from (wildcard_import)) @import
