import { DELIVERY_SLOTS_PER_PROJECT, DeliverySlots } from './delivery-slots';

describe('DeliverySlots', () => {
  it('gives a project at most its share, and a destination one delivery at a time, freeing them on release', () => {
    const slots = new DeliverySlots();
    expect(slots.tryTake('p1', 'd1')).toBe(true);
    expect(slots.tryTake('p1', 'd1')).toBe(false);
    for (let i = 2; i <= DELIVERY_SLOTS_PER_PROJECT; i += 1) expect(slots.tryTake('p1', `d${i}`)).toBe(true);
    expect(slots.tryTake('p1', 'd-next')).toBe(false);
    expect(slots.tryTake('p2', 'd-other')).toBe(true);
    slots.release('p1', 'd1');
    expect(slots.tryTake('p1', 'd1')).toBe(true);
  });
});
