public import Foundation

/// A self-signed certificate and its key (P-256, PEM) made by openssl in `folder` for `names`
/// (`DNS:localhost`, `IP:127.0.0.1`), with the README's command: what a test serves HTTPS with.
public func makeSelfSignedPair(in folder: URL, names: [String]) throws -> (certificate: String, key: String) {
    let certificate = folder.appendingPathComponent("cert.pem").path
    let key = folder.appendingPathComponent("key.pem").path
    let openssl = Process()
    openssl.executableURL = URL(fileURLWithPath: openSSLPath)
    openssl.arguments = [
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "825", "-subj", "/CN=sensorbridge",
        "-addext", "subjectAltName=" + names.joined(separator: ","), "-keyout", key, "-out", certificate,
    ]
    openssl.standardError = FileHandle.nullDevice
    try ChildLaunch.run(openssl)
    openssl.waitUntilExit()
    return (certificate, key)
}

public let openSSLPath = "/usr/bin/openssl"
