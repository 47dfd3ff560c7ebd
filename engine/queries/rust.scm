(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(union_item name: (type_identifier) @name) @definition.struct
(trait_item name: (type_identifier) @name) @definition.trait
(impl_item type: (_) @name) @definition.impl
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module
(macro_definition name: (identifier) @name) @definition.function

(use_declaration argument: (_) @import.use) @import
; The rows of an inline module's body: a `super` in a use inside it (`mod tests { use super::*; }`) is this file.
(mod_item body: (declaration_list) @import.inline_mod) @import
(mod_item !body name: (identifier) @import.mod) @import
(extern_crate_declaration name: (identifier) @import.crate alias: (identifier)? @import.alias) @import

; Exports: pub items at the top of the file.
(source_file (function_item (visibility_modifier) name: (identifier) @export.name))
(source_file (struct_item (visibility_modifier) name: (type_identifier) @export.name))
(source_file (enum_item (visibility_modifier) name: (type_identifier) @export.name))
(source_file (trait_item (visibility_modifier) name: (type_identifier) @export.name))
(source_file (type_item (visibility_modifier) name: (type_identifier) @export.name))
(source_file (const_item (visibility_modifier) name: (identifier) @export.name))
(source_file (static_item (visibility_modifier) name: (identifier) @export.name))
(source_file (mod_item (visibility_modifier) name: (identifier) @export.name))
