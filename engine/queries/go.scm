(function_declaration name: (identifier) @name) @definition.function
(method_declaration name: (field_identifier) @name) @definition.method
(type_declaration (type_spec name: (type_identifier) @name type: (struct_type))) @definition.struct
(type_declaration (type_spec name: (type_identifier) @name type: (interface_type))) @definition.interface
(type_spec type: (interface_type (method_elem name: (field_identifier) @name) @definition.method))

(import_spec path: (interpreted_string_literal) @import.source) @import
