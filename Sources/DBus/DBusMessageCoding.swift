import CDBus
import Glibc

/// Reading and writing `DBusValue`s through libdbus message iterators. The only place values
/// meet C pointers.
enum DBusMessageCoding {
    /// Appends `values` to `message`; false when libdbus ran out of memory or a value is invalid
    /// (a string with a NUL, a malformed object path).
    static func append(_ values: [DBusValue], to message: OpaquePointer) -> Bool {
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        for value in values where !append(value, to: &iter) { return false }
        return true
    }

    private static func appendBasic<T>(_ type: Int32, _ value: T, _ iter: inout DBusMessageIter) -> Bool {
        var copy = value
        return withUnsafePointer(to: &copy) { dbus_message_iter_append_basic(&iter, type, $0) } != 0
    }

    private static func appendString(_ type: Int32, _ string: String, _ iter: inout DBusMessageIter) -> Bool {
        if string.utf8.contains(0) { return false }
        if type == CDBUS_TYPE_OBJECT_PATH && dbus_validate_path(string, nil) == 0 { return false }
        return string.withCString { cString in
            var pointer: UnsafePointer<CChar>? = cString
            return withUnsafePointer(to: &pointer) { dbus_message_iter_append_basic(&iter, type, $0) } != 0
        }
    }

    private static func container(
        _ type: Int32, _ signature: String?, _ iter: inout DBusMessageIter, _ body: (inout DBusMessageIter) -> Bool
    ) -> Bool {
        var sub = DBusMessageIter()
        let opened =
            if let signature {
                signature.withCString { dbus_message_iter_open_container(&iter, type, $0, &sub) }
            } else {
                dbus_message_iter_open_container(&iter, type, nil, &sub)
            }
        guard opened != 0 else { return false }
        guard body(&sub) else {
            dbus_message_iter_abandon_container(&iter, &sub)
            return false
        }
        return dbus_message_iter_close_container(&iter, &sub) != 0
    }

    static func append(_ value: DBusValue, to iter: inout DBusMessageIter) -> Bool {
        switch value {
        case .byte(let v): return appendBasic(CDBUS_TYPE_BYTE, v, &iter)
        case .bool(let v): return appendBasic(CDBUS_TYPE_BOOLEAN, dbus_bool_t(v ? 1 : 0), &iter)
        case .int16(let v): return appendBasic(CDBUS_TYPE_INT16, v, &iter)
        case .uint16(let v): return appendBasic(CDBUS_TYPE_UINT16, v, &iter)
        case .int32(let v): return appendBasic(CDBUS_TYPE_INT32, v, &iter)
        case .uint32(let v): return appendBasic(CDBUS_TYPE_UINT32, v, &iter)
        case .int64(let v): return appendBasic(CDBUS_TYPE_INT64, v, &iter)
        case .uint64(let v): return appendBasic(CDBUS_TYPE_UINT64, v, &iter)
        case .double(let v): return appendBasic(CDBUS_TYPE_DOUBLE, v, &iter)
        case .unixFD(let v): return appendBasic(CDBUS_TYPE_UNIX_FD, v, &iter)
        case .string(let s): return appendString(CDBUS_TYPE_STRING, s, &iter)
        case .objectPath(let s): return appendString(CDBUS_TYPE_OBJECT_PATH, s, &iter)
        case .signature(let s): return appendString(CDBUS_TYPE_SIGNATURE, s, &iter)
        case .bytes(let bytes):
            return container(CDBUS_TYPE_ARRAY, "y", &iter) { sub in
                bytes.withUnsafeBufferPointer { buffer in
                    var base = buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!
                    return withUnsafePointer(to: &base) {
                        dbus_message_iter_append_fixed_array(&sub, CDBUS_TYPE_BYTE, $0, Int32(buffer.count))
                    } != 0
                }
            }
        case .array(let element, let items):
            return container(CDBUS_TYPE_ARRAY, element, &iter) { sub in
                items.allSatisfy { $0.signature == element && append($0, to: &sub) }
            }
        case .dictionary(let key, let valueSignature, let entries):
            return container(CDBUS_TYPE_ARRAY, "{" + key + valueSignature + "}", &iter) { sub in
                entries.allSatisfy { entry in
                    entry.key.signature == key && entry.value.signature == valueSignature
                        && container(CDBUS_TYPE_DICT_ENTRY, nil, &sub) { pair in
                            append(entry.key, to: &pair) && append(entry.value, to: &pair)
                        }
                }
            }
        case .structure(let fields):
            return container(CDBUS_TYPE_STRUCT, nil, &iter) { sub in fields.allSatisfy { append($0, to: &sub) } }
        case .variant(let inner):
            return container(CDBUS_TYPE_VARIANT, inner.signature, &iter) { sub in append(inner, to: &sub) }
        }
    }

    /// Whether `message` is a `PropertiesChanged` signal (`sa{sv}as`) of `interface` whose only
    /// changed property is `property`, an `ay` in its variant, and whose invalidated list is empty
    /// or absent; if so, its bytes replace `bytes`' contents (read in place and copied once, into
    /// `bytes`' own storage: no allocation when it has room).
    static func onlyChangedBytes(
        _ message: OpaquePointer, interface: UnsafePointer<CChar>, property: UnsafePointer<CChar>, into bytes: inout [UInt8]
    ) -> Bool {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0, dbus_message_iter_get_arg_type(&iter) == CDBUS_TYPE_STRING,
            let name = basic(&iter, UnsafePointer<CChar>?.none), strcmp(name, interface) == 0,
            dbus_message_iter_next(&iter) != 0, dbus_message_iter_get_arg_type(&iter) == CDBUS_TYPE_ARRAY,
            dbus_message_iter_get_element_type(&iter) == CDBUS_TYPE_DICT_ENTRY
        else { return false }
        var entries = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &entries)
        var entry = DBusMessageIter()
        var value = DBusMessageIter()
        guard dbus_message_iter_get_arg_type(&entries) == CDBUS_TYPE_DICT_ENTRY else { return false }
        dbus_message_iter_recurse(&entries, &entry)
        guard dbus_message_iter_get_arg_type(&entry) == CDBUS_TYPE_STRING,
            let key = basic(&entry, UnsafePointer<CChar>?.none), strcmp(key, property) == 0,
            dbus_message_iter_next(&entry) != 0, dbus_message_iter_get_arg_type(&entry) == CDBUS_TYPE_VARIANT
        else { return false }
        dbus_message_iter_recurse(&entry, &value)
        guard dbus_message_iter_get_arg_type(&value) == CDBUS_TYPE_ARRAY,
            dbus_message_iter_get_element_type(&value) == CDBUS_TYPE_BYTE,
            // The only changed property: no entry after it.
            dbus_message_iter_next(&entries) == 0
        else { return false }
        if dbus_message_iter_next(&iter) != 0 {
            // The invalidated properties: an empty array of strings.
            var invalidated = DBusMessageIter()
            guard dbus_message_iter_get_arg_type(&iter) == CDBUS_TYPE_ARRAY else { return false }
            dbus_message_iter_recurse(&iter, &invalidated)
            guard dbus_message_iter_get_arg_type(&invalidated) == CDBUS_TYPE_INVALID else { return false }
        }
        var array = DBusMessageIter()
        dbus_message_iter_recurse(&value, &array)
        var pointer: UnsafeRawPointer?
        var count: Int32 = 0
        withUnsafeMutablePointer(to: &pointer) { dbus_message_iter_get_fixed_array(&array, $0, &count) }
        bytes.removeAll(keepingCapacity: true)
        if let pointer, count > 0 { bytes.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: Int(count))) }
        return true
    }

    /// Every argument of `message`.
    static func read(_ message: OpaquePointer) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        return readAll(&iter)
    }

    private static func readAll(_ iter: inout DBusMessageIter) -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != CDBUS_TYPE_INVALID {
            values.append(read(&iter))
            dbus_message_iter_next(&iter)
        }
        return values
    }

    private static func basic<T>(_ iter: inout DBusMessageIter, _ zero: T) -> T {
        var value = zero
        withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&iter, $0) }
        return value
    }

    private static func string(_ iter: inout DBusMessageIter) -> String {
        let pointer: UnsafePointer<CChar>? = basic(&iter, nil)
        return pointer.map { String(cString: $0) } ?? ""
    }

    private static func signature(_ iter: inout DBusMessageIter) -> String {
        guard let pointer = dbus_message_iter_get_signature(&iter) else { return "" }
        defer { dbus_free(pointer) }
        return String(cString: pointer)
    }

    private static func read(_ iter: inout DBusMessageIter) -> DBusValue {
        let type = dbus_message_iter_get_arg_type(&iter)
        switch type {
        case CDBUS_TYPE_BYTE: return .byte(basic(&iter, UInt8(0)))
        case CDBUS_TYPE_BOOLEAN: return .bool(basic(&iter, dbus_bool_t(0)) != 0)
        case CDBUS_TYPE_INT16: return .int16(basic(&iter, Int16(0)))
        case CDBUS_TYPE_UINT16: return .uint16(basic(&iter, UInt16(0)))
        case CDBUS_TYPE_INT32: return .int32(basic(&iter, Int32(0)))
        case CDBUS_TYPE_UINT32: return .uint32(basic(&iter, UInt32(0)))
        case CDBUS_TYPE_INT64: return .int64(basic(&iter, Int64(0)))
        case CDBUS_TYPE_UINT64: return .uint64(basic(&iter, UInt64(0)))
        case CDBUS_TYPE_DOUBLE: return .double(basic(&iter, Double(0)))
        case CDBUS_TYPE_UNIX_FD: return .unixFD(basic(&iter, Int32(-1)))
        case CDBUS_TYPE_STRING: return .string(string(&iter))
        case CDBUS_TYPE_OBJECT_PATH: return .objectPath(string(&iter))
        case CDBUS_TYPE_SIGNATURE: return .signature(string(&iter))
        case CDBUS_TYPE_VARIANT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .variant(read(&sub))
        case CDBUS_TYPE_STRUCT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .structure(readAll(&sub))
        case CDBUS_TYPE_ARRAY:
            let arraySignature = signature(&iter)
            let element = String(arraySignature.dropFirst())
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            if element == "y" {
                var pointer: UnsafeRawPointer?
                var count: Int32 = 0
                withUnsafeMutablePointer(to: &pointer) { dbus_message_iter_get_fixed_array(&sub, $0, &count) }
                guard let pointer, count > 0 else { return .bytes([]) }
                return .bytes(Array(UnsafeRawBufferPointer(start: pointer, count: Int(count))))
            }
            if dbus_message_iter_get_element_type(&iter) == CDBUS_TYPE_DICT_ENTRY {
                // "{kv}": the key is one basic type character, the value the rest.
                let inner = element.dropFirst().dropLast()
                let key = String(inner.prefix(1))
                let valueSignature = String(inner.dropFirst())
                var entries: [DBusValue.DictionaryEntry] = []
                while dbus_message_iter_get_arg_type(&sub) == CDBUS_TYPE_DICT_ENTRY {
                    var pair = DBusMessageIter()
                    dbus_message_iter_recurse(&sub, &pair)
                    let k = read(&pair)
                    dbus_message_iter_next(&pair)
                    entries.append(.init(k, read(&pair)))
                    dbus_message_iter_next(&sub)
                }
                return .dictionary(keySignature: key, valueSignature: valueSignature, entries)
            }
            return .array(elementSignature: element, readAll(&sub))
        default:
            return .structure([])
        }
    }
}
