// The SSH wire encoding (RFC 4251 section 5): uint32 big-endian lengths before byte strings. Used
// for ssh-ed25519 public keys (RFC 8709) and unencrypted OpenSSH private key files.

export class SshReader {
  private offset = 0;
  constructor(private readonly bytes: Buffer) {}

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  uint32(): number {
    if (this.remaining < 4) throw new Error('the data ends early');
    const value = this.bytes.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }

  string(): Buffer {
    const length = this.uint32();
    if (length > this.remaining) throw new Error('a length field points past the end of the data');
    const value = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }

  text(): string {
    return this.string().toString('latin1');
  }
}

export function sshString(value: Buffer | string): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'latin1') : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** The ssh-ed25519 public key blob: string "ssh-ed25519", string key (32 bytes). */
export function ed25519PublicBlob(rawPublicKey: Buffer): Buffer {
  return Buffer.concat([sshString('ssh-ed25519'), sshString(rawPublicKey)]);
}
