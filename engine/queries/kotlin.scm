(class_declaration "interface" name: (_) @name) @definition.interface
(class_declaration name: (_) @name) @definition.class
(object_declaration name: (_) @name) @definition.class
(function_declaration name: (_) @name) @definition.function

(import (qualified_identifier) @import.source) @import
