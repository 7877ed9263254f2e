// Sealing through a relay's room (docs/protocol.md#relay-reel-relay): every frame sealed end to
// end with keys the relay never sees — WebCrypto's HKDF-SHA256, AES-256-GCM (the nonce each
// message's number), ECDSA P-256 for the host's handshake. The same bytes as the host's Swift
// (ViewerModuleTests checks them against its vectors).

const encoder = new TextEncoder();
export const utf8 = (text) => encoder.encode(text);

/// HKDF-SHA256 of `secret` with `salt` and the label `info`: 32 bytes.
export async function hkdf(secret, salt, info) {
  const key = await crypto.subtle.importKey("raw", secret, "HKDF", false, ["deriveBits"]);
  return new Uint8Array(await crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt, info: utf8(info) }, key, 256));
}

/// The 12-byte nonce of message `counter`: four zero bytes, then the number, big-endian.
export function nonce(counter) {
  const iv = new Uint8Array(12);
  new DataView(iv.buffer).setBigUint64(4, BigInt(counter));
  return iv;
}

/// Every sealed message is padded to a multiple of 64 bytes (0x80, then zeros), so the relay
/// cannot tell keys apart by a message's size.
export function pad(bytes) {
  const plain = new Uint8Array(bytes);
  const padded = new Uint8Array(Math.ceil((plain.length + 1) / 64) * 64);
  padded.set(plain, 0);
  padded[plain.length] = 0x80;
  return padded;
}

/// A padded message's plaintext (an ArrayBuffer); throws when the padding is not `pad`'s.
export function unpad(padded) {
  let mark = padded.length - 1;
  while (mark >= 0 && padded[mark] === 0) mark--;
  if (mark < 0 || padded[mark] !== 0x80 || padded.length % 64 !== 0 || padded.length - mark > 64) throw new Error("padding");
  return padded.slice(0, mark).buffer;
}

/// A viewer connection's keys from the room's secret and both salts: `seal` (viewer to host)
/// and `open` (host to viewer).
export async function channelKeys(secret, viewerSalt, hostSalt) {
  const salt = new Uint8Array(32);
  salt.set(viewerSalt, 0);
  salt.set(hostSalt, 16);
  const use = async (info, usage) => crypto.subtle.importKey("raw", await hkdf(secret, salt, info), "AES-GCM", false, [usage]);
  return { seal: await use("reel relay v1 viewer to host", "encrypt"), open: await use("reel relay v1 host to viewer", "decrypt") };
}

/// `bytes` padded and sealed as message `counter`: ciphertext, then the 16-byte tag.
export async function seal(key, counter, bytes) {
  return new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce(counter) }, key, pad(bytes)));
}

/// Message `counter`'s plaintext (an ArrayBuffer); throws when it does not open.
export async function open(key, counter, sealed) {
  return unpad(new Uint8Array(await crypto.subtle.decrypt({ name: "AES-GCM", iv: nonce(counter) }, key, sealed)));
}

/// The host's answer on a channel (salt 16, public key 65, signature 64): its salt when the
/// key is the one the link names (SHA-256, first 16 bytes) and its ECDSA P-256 signature over
/// the room's name and both salts holds; null otherwise.
export async function verifyHost(room, hostKeyID, viewerSalt, answer) {
  if (answer.length !== 145 || !hostKeyID) return null;
  const salt = answer.slice(0, 16), publicKey = answer.slice(16, 81), signature = answer.slice(81);
  const id = new Uint8Array(await crypto.subtle.digest("SHA-256", publicKey)).slice(0, 16);
  if (id.some((b, i) => b !== hostKeyID[i])) return null;
  const label = utf8("reel relay v1 host handshake " + room);
  const signed = new Uint8Array(label.length + 1 + 32);
  signed.set(label, 0);
  signed.set(viewerSalt, label.length + 1);
  signed.set(salt, label.length + 17);
  try {
    const key = await crypto.subtle.importKey("raw", publicKey, { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
    const valid = await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, key, signature, signed);
    return valid ? salt : null;
  } catch (error) {
    return null;
  }
}

/// Bytes of base64url text (no padding); none for text that is not base64url.
export function base64url(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
  try {
    return Uint8Array.from(atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4)), (c) => c.charCodeAt(0));
  } catch (error) {
    return new Uint8Array(0);
  }
}

/// A link's secret (`SECRET.KEY` after its #) for `room`: the secret's bytes, the host key's
/// id, and the verifier the relay checks (hex); throws for anything else.
export async function roomSecret(room, secretText) {
  const [secretPart, keyPart] = secretText.split(".");
  const secret = base64url(secretPart || "");
  if (secret.length !== 32) throw new Error("not a room secret");
  const hostKeyID = base64url(keyPart || "");
  if (hostKeyID.length !== 16) throw new Error("the link names no host key");
  const verifier = [...(await hkdf(secret, new Uint8Array(0), "reel relay v1 verifier"))].map((b) => b.toString(16).padStart(2, "0")).join("");
  return { room, secret, hostKeyID, verifier };
}
