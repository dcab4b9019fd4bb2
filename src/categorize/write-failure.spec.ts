import { classifyWriteFailure } from './write-failure';

const prismaError = (cause: Record<string, unknown>) =>
  Object.assign(new Error(''), { code: 'P2010', meta: { driverAdapterError: { name: 'DriverAdapterError', cause } } });

describe('classifyWriteFailure', () => {
  it('treats data exceptions, integrity violations and raised exceptions as poison', () => {
    for (const code of ['22007', '23505', 'P0001']) {
      expect(classifyWriteFailure(prismaError({ code, message: 'bad row' }))).toEqual({ isPoison: true, sqlState: code, reason: 'bad row' });
    }
  });

  it('treats an unreachable database, a deadlock and a shutdown as worth retrying', () => {
    expect(classifyWriteFailure(prismaError({ kind: 'DatabaseNotReachable', host: 'db', port: 5432 }))).toMatchObject({
      isPoison: false,
      reason: 'DatabaseNotReachable',
    });
    expect(classifyWriteFailure(prismaError({ code: '40P01', message: 'deadlock detected' })).isPoison).toBe(false);
    expect(classifyWriteFailure(prismaError({ code: '57P01', message: 'terminating connection' })).isPoison).toBe(false);
    expect(classifyWriteFailure(new Error('Connection terminated unexpectedly')).isPoison).toBe(false);
  });

  it('reads the SQLSTATE of a plain pg error too', () => {
    expect(classifyWriteFailure(Object.assign(new Error('value too long'), { code: '22001' })).isPoison).toBe(true);
  });
});
