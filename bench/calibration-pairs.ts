/**
 * Questions and the passages that answer them, on unrelated subjects, for `bench:calibrate`: a question and its
 * own passage are a related pair; a question and another subject's passage are an unrelated pair. Written for
 * this purpose (short, everyday and technical), so the scale reflects what users ask of a mixed collection.
 */
export const calibrationPairs: readonly { readonly question: string; readonly passage: string }[] = [
  {
    question: 'how long should I boil an egg',
    passage: 'Soft-boiled eggs need about six minutes in boiling water; hard-boiled eggs take ten to twelve.',
  },
  {
    question: 'why does flow separate near a shock',
    passage:
      'The adverse pressure gradient of a shock wave thickens the boundary layer until the flow separates from the wall.',
  },
  {
    question: 'what is a mortgage interest rate',
    passage: 'A mortgage rate is the yearly interest a lender charges on a home loan, fixed or variable over its term.',
  },
  {
    question: 'how do vaccines train the immune system',
    passage: 'A vaccine exposes the immune system to a harmless antigen so that it makes antibodies and memory cells.',
  },
  {
    question: 'offside rule in football',
    passage:
      'A player is offside when nearer to the goal line than both the ball and the second-last defender as the ball is played.',
  },
  {
    question: 'how to reverse a linked list',
    passage:
      'Walk the list once, pointing each node back at the previous one, and return the last node as the new head.',
  },
  {
    question: 'best time to visit Kyoto',
    passage: 'Spring cherry blossoms and autumn leaves make April and November the most popular months to visit Kyoto.',
  },
  {
    question: 'what causes the seasons on earth',
    passage: 'The tilt of the earth’s axis changes how directly sunlight strikes each hemisphere over the year.',
  },
  {
    question: 'how to tune a guitar by ear',
    passage: 'Fret the fifth string of the low E and match it to the open A string, then repeat across the neck.',
  },
  {
    question: 'symptoms of iron deficiency',
    passage:
      'Low iron causes fatigue, pale skin, shortness of breath and brittle nails because the blood carries less oxygen.',
  },
  {
    question: 'how does a heat pump work',
    passage: 'A heat pump moves heat from cold outdoor air into the house by compressing and condensing a refrigerant.',
  },
  {
    question: 'who painted the Mona Lisa',
    passage: 'Leonardo da Vinci painted the Mona Lisa in the early sixteenth century; it hangs in the Louvre.',
  },
  {
    question: 'how to prune tomato plants',
    passage:
      'Pinch off the suckers that grow between the main stem and the branches so the plant puts its energy into fruit.',
  },
  {
    question: 'what is inflation',
    passage: 'Inflation is the general rise of prices over time, which lowers what a unit of money can buy.',
  },
  {
    question: 'how do bees make honey',
    passage:
      'Bees collect nectar, break down its sugars with enzymes and fan it in the comb until the water evaporates.',
  },
  {
    question: 'train a neural network with gradient descent',
    passage: 'The weights are updated step by step against the gradient of the loss computed by backpropagation.',
  },
  {
    question: 'how to remove a red wine stain',
    passage: 'Blot the stain, cover it with salt or baking soda, then rinse with cold water and a little dish soap.',
  },
  {
    question: 'why is the sky blue',
    passage: 'Air molecules scatter short blue wavelengths of sunlight far more than red ones, so the sky looks blue.',
  },
  {
    question: 'rules of chess castling',
    passage:
      'Castling moves the king two squares toward a rook, which jumps over it, if neither has moved and no square is attacked.',
  },
  {
    question: 'how to back up a database while it runs',
    passage:
      'An online backup copies the database pages while writes continue, so the copy is consistent at one point in time.',
  },
  {
    question: 'what do cats eat',
    passage: 'Cats are carnivores: they need meat for protein and taurine, and most do well on wet and dry cat food.',
  },
  {
    question: 'how to write a cover letter',
    passage: 'Open with the role you want, show two achievements that fit it, and close by asking for an interview.',
  },
  {
    question: 'lift and drag of a delta wing',
    passage: 'Slender delta wings produce vortex lift at high angles of attack, raising both lift and drag.',
  },
  {
    question: 'how do tides work',
    passage:
      'The moon’s gravity pulls the oceans into two bulges, and the earth’s rotation carries coasts through them twice a day.',
  },
];
