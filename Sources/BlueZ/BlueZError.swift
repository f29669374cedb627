public import DBus

/// What went wrong talking to BlueZ, in the terms a person can act on; `description` says the fix.
public enum BlueZError: Error, Sendable, CustomStringConvertible {
    /// The system bus itself cannot be reached.
    case noBus(DBusError)
    /// Nothing owns `org.bluez`.
    case notRunning
    /// The bus policy refuses us.
    case permissionDenied(DBusError)
    /// No adapter, or not the one asked for.
    case noAdapter(String?)
    /// The adapter is soft- or hard-blocked.
    case blocked(String)
    /// The adapter is off, and the bus policy does not let us switch it on (setting `Powered`).
    case poweredOff(String)
    /// No known device matches an address or name.
    case deviceNotFound(String)
    /// Connecting failed after the retries (often: the sensor is connected to another central).
    case connectFailed(device: String, DBusError)
    /// Connected, but BlueZ or the sensor refused to start a measurement's notifications.
    case notifyFailed(device: String, characteristic: String, DBusError)
    /// BlueZ before 5.84 keeps a characteristic refusing every subscription ("Notify acquired")
    /// after its link dropped while `AcquireNotify` subscribed, until bluetoothd restarts.
    case notifyStuck(device: String, characteristic: String)
    /// The sensor or BlueZ refused pairing.
    case pairingRefused(device: String, DBusError)
    /// Any other D-Bus error.
    case dbus(DBusError)

    /// Classifies a D-Bus error from a call to BlueZ.
    public init(_ error: DBusError) {
        switch error.name {
        case .serviceUnknown, .nameHasNoOwner: self = .notRunning
        case .accessDenied: self = .permissionDenied(error)
        case .noServer, .fileNotFound, .disconnected: self = .noBus(error)
        default: self = .dbus(error)
        }
    }

    public var description: String {
        switch self {
        case .noBus(let error):
            "cannot reach the system D-Bus (\(error.message)); is the dbus service running? ('sudo systemctl start dbus')"
        case .notRunning:
            "BlueZ is not running (nothing owns org.bluez on the system bus); start it with 'sudo systemctl start bluetooth'"
        case .permissionDenied(let error):
            "permission denied talking to BlueZ (\(error.message)); add yourself to the bluetooth group "
                + "('sudo usermod -aG bluetooth $USER', then log in again), or install the D-Bus policy from udev/"
        case .noAdapter(let name?):
            "no Bluetooth adapter \(name); list the adapters with 'bluetoothctl list' and give one with --adapter"
        case .noAdapter(nil):
            "no Bluetooth adapter found; plug one in, or check 'bluetoothctl list' and 'rfkill list'"
        case .blocked(let name):
            "the Bluetooth adapter \(name) is blocked; run 'rfkill unblock bluetooth'"
        case .poweredOff(let name):
            "the Bluetooth adapter \(name) is off, and the bus policy does not let this user switch it on; run "
                + "'bluetoothctl power on' as a user who may, or let BlueZ do it when it starts (AutoEnable=true "
                + "in /etc/bluetooth/main.conf)"
        case .deviceNotFound(let query):
            "no sensor matches '\(query)'; run 'sensorbridge scan' and give an address or name it lists"
        case .connectFailed(let device, let error):
            "could not connect to \(device) (\(error)); wake the sensor (wear the strap, turn the cranks), and if a "
                + "phone or another app is connected to it, disconnect it there: most sensors take one connection at a time"
        case .notifyFailed(let device, let characteristic, let error):
            "connected to \(device), but could not start the notifications of its \(characteristic) (\(error)); "
                + "if another app on this computer uses the sensor, close it; otherwise remove the sensor "
                + "('bluetoothctl remove ADDRESS') and pair it again"
        case .notifyStuck(let device, let characteristic):
            "BlueZ refuses every subscription to \(device)'s \(characteristic) since its link dropped while "
                + "AcquireNotify was subscribing, which BlueZ before 5.84 does not recover from; restart it "
                + "('sudo systemctl restart bluetooth': every Bluetooth link drops for a moment), and on this BlueZ "
                + "record without --acquire-notify"
        case .pairingRefused(let device, let error):
            "pairing with \(device) was refused (\(error)); put the sensor in pairing mode and try 'sensorbridge pair' again"
        case .dbus(let error):
            "BlueZ answered \(error)"
        }
    }
}
